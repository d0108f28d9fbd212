// The upload form of an item (templates/admin/item.html): sends the file as the raw body of a PUT,
// so that a progress bar can follow it, with the page's CSRF token in X-CSRFToken. Without this
// script the form posts the file as multipart; the server stores either only once it arrived whole.
"use strict";

// A size as the page writes it (templates/archive/_files.html's size filter): 1,5 MiB in Portuguese.
function formatBytes(bytes) {
  const units = ["bytes", "KiB", "MiB", "GiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 ? 0 : 1;
  return `${portalNumber(value, { minimumFractionDigits: digits, maximumFractionDigits: digits })} ${units[unit]}`;
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
      showError(portalText("%(name)s has %(size)s; this portal keeps files of at most %(limit)s. Nothing was sent.",
        { name: file.name, size: formatBytes(file.size), limit: formatBytes(maxBytes) }));
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
        const percent = portalNumber(Math.floor((100 * progress.loaded) / progress.total) / 100, { style: "percent" });
        status.textContent = portalText("%(sent)s of %(total)s sent (%(percent)s)",
          { sent: formatBytes(progress.loaded), total: formatBytes(progress.total), percent });
      }
    });
    request.addEventListener("load", () => {
      if (request.status >= 200 && request.status < 300) {
        status.textContent = portalText("Stored.");
        window.location.assign(form.dataset.done);
        window.location.reload();
        return;
      }
      let message = portalText("The portal refused the file (HTTP %(status)s). Nothing was stored.", { status: request.status });
      try {
        message = JSON.parse(request.responseText).error.message;
      } catch (ignored) {
        // not the JSON error: keep the status line
      }
      showError(message);
    });
    request.addEventListener("error", () => showError(portalText("The upload was interrupted: nothing was stored. Try again.")));
    request.addEventListener("abort", () => showError(portalText("Upload cancelled: nothing was stored.")));
    progressBox.hidden = false;
    bar.value = 0;
    status.textContent = portalText("Sending %(name)s (%(size)s)…", { name: file.name, size: formatBytes(file.size) });
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
