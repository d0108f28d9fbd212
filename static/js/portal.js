// Behaviour shared by every page. No inline scripts anywhere: the Content-Security-Policy
// allows only files served by the portal itself.
"use strict";

// Copy buttons: <button class="copy" data-copy="text">. Announces the result to screen readers.
document.addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-copy]");
  if (!button) return;
  const text = button.dataset.copy;
  let copied = false;
  try {
    await navigator.clipboard.writeText(text);
    copied = true;
  } catch (_) {
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "visually-hidden";
    document.body.append(area);
    area.select();
    copied = document.execCommand("copy");
    area.remove();
  }
  const original = button.dataset.label || button.textContent;
  button.dataset.label = original;
  button.textContent = copied ? "Copied" : "Copy failed";
  button.classList.toggle("copied", copied);
  setTimeout(() => { button.textContent = original; button.classList.remove("copied"); }, 1500);
});
