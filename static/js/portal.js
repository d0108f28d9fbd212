// Behaviour shared by every page. No inline scripts anywhere: the Content-Security-Policy
// allows only files served by the portal itself.
"use strict";

// What scripts write, in the page's language: the page gives the translations as JSON in
// <body data-portal-text> (ibiportal/web/i18n.py SCRIPT_TEXTS); %(name)s takes values[name].
const PORTAL_TEXT = JSON.parse(document.body?.dataset.portalText || "{}");
function portalText(english, values = {}) {
  return (PORTAL_TEXT[english] || english).replace(/%\((\w+)\)s/g, (_, name) => String(values[name]));
}
window.portalText = portalText;

// A text whose words follow a number: its English singular and plural, the form the page's
// language asks for `count` (Intl.PluralRules: Portuguese says "1 IBI", "0 IBI"), with `count`
// written as the language writes numbers.
const PAGE_LANGUAGE = document.documentElement.lang || "en";
function portalPlural(singular, plural, count, values = {}) {
  const one = new Intl.PluralRules(PAGE_LANGUAGE).select(count) === "one";
  return portalText(one ? singular : plural, { count: portalNumber(count), ...values });
}
window.portalPlural = portalPlural;

// Text into an element with the code it quotes between backticks as <code> (the portal's messages
// quote code as Markdown does; a page shows no backtick, as ibiportal.web.i18n.code_spans does on
// the server). Built from text nodes: nothing in the text is read as markup.
function portalShow(element, text) {
  element.replaceChildren(...String(text).split("`").map((part, index) => {
    if (index % 2 === 0) return document.createTextNode(part);
    const code = document.createElement("code");
    code.textContent = part;
    return code;
  }));
}
window.portalShow = portalShow;

// A number as the page's language writes it: 1,234.5 / 1.234,5 (`options` as Intl.NumberFormat's).
function portalNumber(value, options = {}) {
  return new Intl.NumberFormat(PAGE_LANGUAGE, options).format(value);
}
window.portalNumber = portalNumber;

// Copy buttons: <button class="copy" data-copy="text" [data-copy-html="html"]>. With HTML, the
// clipboard gets both flavours, so a word processor pastes a citation with its italic and bold
// and a plain-text field gets the text. Announces the result to screen readers.
async function writeClipboard(text, html) {
  if (html === undefined) return navigator.clipboard.writeText(text);
  return navigator.clipboard.write([new ClipboardItem({
    "text/plain": new Blob([text], { type: "text/plain" }),
    "text/html": new Blob([html], { type: "text/html" }),
  })]);
}

// Without the asynchronous clipboard (no permission, older browsers): a copy event that sets both.
function copyWithEvent(text, html) {
  const fill = (event) => {
    event.clipboardData.setData("text/plain", text);
    if (html !== undefined) event.clipboardData.setData("text/html", html);
    event.preventDefault();
  };
  document.addEventListener("copy", fill, { once: true });
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.className = "visually-hidden";
  document.body.append(area);
  area.select();
  const copied = document.execCommand("copy");
  area.remove();
  document.removeEventListener("copy", fill);
  return copied;
}

document.addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-copy]");
  if (!button) return;
  const text = button.dataset.copy;
  const html = button.dataset.copyHtml;
  let copied = false;
  try {
    await writeClipboard(text, html);
    copied = true;
  } catch (_) {
    copied = copyWithEvent(text, html);
  }
  const original = button.dataset.label || button.textContent;
  button.dataset.label = original;
  button.textContent = portalText(copied ? "Copied" : "Copy failed");
  button.classList.toggle("copied", copied);
  setTimeout(() => { button.textContent = original; button.classList.remove("copied"); }, 1500);
});

// After a form was sent: focus the first field with an error (its message is read with it, by
// aria-describedby), else an error of the whole form (form_errors in templates/_macros.html),
// else the result the page marks with data-focus-on-load, so keyboard and screen-reader users
// land where the answer is instead of at the top of the page.
document.addEventListener("DOMContentLoaded", () => {
  const target = document.querySelector("main [aria-invalid='true']")
    || document.querySelector("main form .error[role='alert'][tabindex]")
    || document.querySelector("[data-focus-on-load]");
  if (!target) return;
  // focus() alone does not scroll before the page's first layout (a field low on a phone stayed
  // off-screen): bring a field to the middle of the screen, a result's heading to the top.
  target.scrollIntoView({ block: target.matches("[data-focus-on-load]") ? "start" : "center" });
  target.focus({ preventScroll: true });
});

// A box that scrolls sideways (a wide table, the sequence diagram) says so while what it holds
// is wider than it: a scroll bar alone is hidden on touch screens until one scrolls, and on a
// desktop the last column is simply cut off at the box's edge. The hint is the box's own when it
// has one (the diagram's .seq-hint, just before it), else a line written before the box; it is
// shown and hidden as the box's width changes (a window resized, a phone turned).
const SCROLLERS = ".table-scroll, .seq-scroll";
function scrollHint(box) {
  const before = box.previousElementSibling;
  if (before && before.classList.contains("scroll-hint")) return before;
  const hint = document.createElement("p");
  hint.className = "scroll-hint";
  hint.hidden = true;
  hint.textContent = portalText("Scroll sideways to see it all") + " →";
  box.before(hint);
  return hint;
}
function showScrollHint(box) {
  const wider = box.scrollWidth > box.clientWidth + 1;
  const hint = wider || box.previousElementSibling?.classList.contains("scroll-hint") ? scrollHint(box) : null;
  if (hint) hint.hidden = !wider;
}
document.addEventListener("DOMContentLoaded", () => {
  const boxes = document.querySelectorAll(SCROLLERS);
  const watch = new ResizeObserver((entries) => entries.forEach((entry) => showScrollHint(entry.target)));
  boxes.forEach((box) => { showScrollHint(box); watch.observe(box); });
});
