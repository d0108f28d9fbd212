// The upload form of an item (templates/admin/item.html): sends the file as the raw body of a PUT,
// so that a progress bar can follow it, with the page's CSRF token in X-CSRFToken. Without this
// script the form posts the file as multipart; the server stores either only once it arrived whole.
"use strict";

function formatBytes(bytes) {
  const units = ["bytes", "KiB", "MiB", "GiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} bytes` : `${value.toFixed(1)} ${units[unit]}`;
}

function setUpUpload(form) {
  const input = form.querySelector("input[type=file]");
  const pathInput = form.querySelector("input[name=path]");
  const progressBox = form.querySelector(".upload-progress");
  const bar = progressBox.querySelector("progress");
  const status = progressBox.querySelector(".upload-status");
  const error = form.querySelector(".upload-error");
  const submit = form.querySelector("button[type=submit]");
  const cancel = form.querySelector(".upload-cancel");
  const maxBytes = Number(form.dataset.maxBytes);
  let request = null;

  function showError(message) {
    error.textContent = message;
    error.hidden = false;
    progressBox.hidden = true;
    submit.disabled = false;
    cancel.hidden = true;
    request = null;
  }

  form.addEventListener("submit", (event) => {
    const file = input.files[0];
    if (!file) {
      return; // the server says what is missing
    }
    event.preventDefault();
    error.hidden = true;
    if (file.size > maxBytes) {
      showError(`${file.name} has ${formatBytes(file.size)}; this portal keeps files of at most ${formatBytes(maxBytes)}. Nothing was sent.`);
      return;
    }
    const path = pathInput.value.trim() || file.name;
    const url = form.dataset.putBase + path.split("/").map(encodeURIComponent).join("/");
    request = new XMLHttpRequest();
    request.open("PUT", url);
    request.setRequestHeader("Accept", "application/json");
    request.setRequestHeader("X-CSRFToken", form.querySelector("input[name=csrf_token]").value);
    if (file.type) {
      request.setRequestHeader("Content-Type", file.type);
    }
    request.upload.addEventListener("progress", (progress) => {
      if (progress.lengthComputable) {
        bar.max = progress.total;
        bar.value = progress.loaded;
        const percent = Math.floor((100 * progress.loaded) / progress.total);
        status.textContent = `${formatBytes(progress.loaded)} of ${formatBytes(progress.total)} sent (${percent}%)`;
      }
    });
    request.addEventListener("load", () => {
      if (request.status >= 200 && request.status < 300) {
        status.textContent = "Stored.";
        window.location.assign(form.dataset.done);
        window.location.reload();
        return;
      }
      let message = `The portal refused the file (HTTP ${request.status}). Nothing was stored.`;
      try {
        message = JSON.parse(request.responseText).error.message;
      } catch (ignored) {
        // not the JSON error: keep the status line
      }
      showError(message);
    });
    request.addEventListener("error", () => showError("The upload was interrupted: nothing was stored. Try again."));
    request.addEventListener("abort", () => showError("Upload cancelled: nothing was stored."));
    progressBox.hidden = false;
    bar.value = 0;
    status.textContent = `Sending ${file.name} (${formatBytes(file.size)})…`;
    submit.disabled = true;
    cancel.hidden = false;
    request.send(file);
  });

  cancel.addEventListener("click", () => {
    if (request) {
      request.abort();
    }
  });
}

document.querySelectorAll("form.upload").forEach(setUpUpload);
