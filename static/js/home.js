// Home page: say what the box holds while it is typed (progressive enhancement: the page works
// fully without this; "Look up" gives the same answer with the actions). Asks GET /api/v1/classify.
"use strict";

(() => {
  const box = document.querySelector("input[data-classify]");
  const live = document.getElementById("q-live");
  if (!box || !live) return;
  const endpoint = box.dataset.classify;
  let timer = null;
  let pending = null;

  const offer = document.getElementById("reference-offer");

  // A reference (an unknown text with IBIs inside) is offered to Check references, with the text.
  function offerReference(reference, text) {
    if (!offer) return;
    offer.hidden = !reference;
    if (!reference) return;
    document.getElementById("reference-title").textContent =
      `This looks like a reference: ${reference.ibis} IBI${reference.ibis === 1 ? "" : "s"} found`;
    document.getElementById("reference-text").value = text;
  }

  function show(answer, text) {
    offerReference(answer.reference, text);
    if (answer.reference) {
      live.textContent = "";
      live.classList.remove("good");
      return;
    }
    if (answer.kind === "unknown") {
      const where = answer.error.position ? ` (at character ${answer.error.position})` : "";
      live.textContent = `Not recognised yet: ${answer.error.message}${where}`;
      live.classList.remove("good");
      return;
    }
    const other = answer.form === "rep" ? answer.ibip : answer.rep;
    const otherName = answer.form === "rep" ? "IBIp" : "repository name";
    const read = answer.notes && answer.notes.length ? ` (read as ${answer.ibi}: ${answer.notes.length} thing(s) around it set aside)` : "";
    live.textContent = `Looks like ${answer.description}${read}` +
      (other ? ` — ${otherName} ${other}` : "") + ". Press Look up for what to do with it.";
    live.classList.add("good");
  }

  async function ask(text) {
    if (pending) pending.abort();
    pending = new AbortController();
    try {
      const response = await fetch(`${endpoint}?q=${encodeURIComponent(text)}`, {
        signal: pending.signal,
        headers: { Accept: "application/json" },
      });
      if (response.ok) show(await response.json(), text);
    } catch (error) {
      if (error.name !== "AbortError") live.textContent = "";
    }
  }

  box.addEventListener("input", () => {
    clearTimeout(timer);
    const text = box.value;
    if (!text.trim()) {
      if (pending) pending.abort();
      live.textContent = "";
      offerReference(null, "");
      return;
    }
    timer = setTimeout(() => ask(text), 250);
  });
})();
