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
    document.getElementById("reference-title").textContent = portalPlural(
      "This looks like a reference: %(count)s IBI found", "This looks like a reference: %(count)s IBIs found",
      reference.ibis);
    document.getElementById("reference-text").value = text;
  }

  function show(answer, text) {
    offerReference(answer.reference, text);
    if (answer.reference) {
      live.textContent = "";
      live.classList.remove("good");
      return;
    }
    // the API answers its sentences in the page's language; each sentence here is whole
    if (answer.kind === "unknown") {
      const error = answer.error;
      const message = error.position
        ? portalText("%(message)s (at character %(position)s)", { message: error.message, position: error.position })
        : error.message;
      portalShow(live, portalText("Not recognised yet: %(message)s", { message }));
      live.classList.remove("good");
      return;
    }
    const other = answer.form === "rep" ? answer.ibip : answer.rep;
    const looks = !other ? portalText("Looks like %(description)s.", { description: answer.description })
      : answer.form === "rep" ? portalText("Looks like %(description)s — IBIp %(other)s.", { description: answer.description, other })
        : portalText("Looks like %(description)s — repository name %(other)s.", { description: answer.description, other });
    const notes = answer.notes ? answer.notes.length : 0;
    const read = notes ? portalPlural("Read as %(ibi)s: %(count)s thing around it set aside.",
      "Read as %(ibi)s: %(count)s things around it set aside.", notes, { ibi: answer.ibi }) : "";
    portalShow(live, [looks, read, portalText("Press Look up for what to do with it.")].filter(Boolean).join(" "));
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
