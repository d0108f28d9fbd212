// Slow actions say they are running: a form marked data-busy="Tracing…" (a trace, a conformance
// check, a confirmation request, a citation) disables its buttons once it is sent, marks itself
// aria-busy, and shows a spinner with that text and the seconds spent in a live region, so an
// impatient second click sends nothing and a screen reader hears that the work started. The page
// that answers replaces all of it. Coming back with the Back button can show the page from the
// back/forward cache as it was left, busy: it is restored then. Without this script the forms work
// the same (and a repeated POST /trace still joins the trace already running, on the server).
"use strict";

const TICK_MS = 1000;

function statusOf(form) {
  let status = form.querySelector(".busy-status");
  if (!status) {
    status = document.createElement("p");
    status.className = "busy-status";
    status.setAttribute("role", "status");  // a polite live region: announced, never interrupting
    status.hidden = true;
    form.append(status);
  }
  return status;
}

function showBusy(form) {
  const status = statusOf(form);
  const spinner = document.createElement("span");
  spinner.className = "spinner";
  spinner.setAttribute("aria-hidden", "true");
  // The seconds spent, for the eye only: a count read out every second would drown the page.
  const elapsed = document.createElement("span");
  elapsed.className = "busy-elapsed";
  elapsed.setAttribute("aria-hidden", "true");
  status.replaceChildren(spinner, " " + form.dataset.busy, elapsed);
  status.hidden = false;
  const started = Date.now();
  form.busyTimer = setInterval(() => {
    elapsed.textContent = ` ${Math.floor((Date.now() - started) / 1000)} s`;
  }, TICK_MS);
  form.setAttribute("aria-busy", "true");
  form.dataset.busyRunning = "";
  // Disabled after the submission has taken the form's values: a disabled submitter would be left out.
  setTimeout(() => form.querySelectorAll("button, input[type=submit]").forEach((button) => {
    if (!button.disabled) { button.disabled = true; button.dataset.busyDisabled = ""; }
  }), 0);
}

function restore(form) {
  clearInterval(form.busyTimer);
  form.removeAttribute("aria-busy");
  delete form.dataset.busyRunning;
  form.querySelectorAll("[data-busy-disabled]").forEach((button) => {
    button.disabled = false;
    delete button.dataset.busyDisabled;
  });
  const status = form.querySelector(".busy-status");
  if (status) { status.hidden = true; status.replaceChildren(); }
}

document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || form.dataset.busy === undefined || event.defaultPrevented) return;
  if (form.dataset.busyRunning !== undefined) {  // sent already: a second Enter sends nothing more
    event.preventDefault();
    return;
  }
  showBusy(form);
});

// Back (or Forward) to a page kept in the back/forward cache: it comes back as it was left.
window.addEventListener("pageshow", (event) => {
  if (event.persisted) document.querySelectorAll("form[data-busy]").forEach(restore);
});
