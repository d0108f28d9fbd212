// Compose page: a live preview of the persistent URL (file 003, §8.1) while the form is filled in.
// The form stays a plain GET form that the server answers on its own; this script only adds:
// - the preview, from /api/v1/compose (same origin), debounced, with the API's error shown next
//   to the field it names and announced in the aria-live status line;
// - the verbs that cannot follow the earlier steps disabled, with the reason (rules from the server,
//   computed by the core: Table 8.2), and each step's language or format shown only for its verb;
// - "Move up" / "Move down" to reorder steps;
// - the page's address kept equal to the form's query (history.replaceState), so it is bookmarkable.
"use strict";

(() => {
  const form = document.getElementById("compose-form");
  if (!form) return;
  const rules = JSON.parse(form.dataset.rules);
  const status = document.getElementById("preview-status");
  const result = document.getElementById("result");
  const steps = [...form.querySelectorAll("fieldset.step")].map((fieldset) => {
    const number = fieldset.dataset.step;
    return {
      fieldset,
      number,
      verb: form.elements[`step${number}-verb`],
      language: form.elements[`step${number}-language`],
      format: form.elements[`step${number}-format`],
      note: document.getElementById(`step${number}-note`),
    };
  });
  const DELAY = 250;
  let timer = null;
  let controller = null;
  let asked = null;  // the query of the preview shown or on its way: a "change" after an "input" asks nothing again

  // ---- Which verbs are chosen, and the parameters of the API ----------------------------------

  // The chosen verbs in order: one entry per non-empty step, then GetFileList when ticked.
  // An API error about the verbs gives the number of the verb in this list.
  function chosen() {
    const list = steps
      .filter((step) => step.verb.value)
      .map((step) => ({ text: step.verb.value + parameter(step), control: step.verb, label: portalText("Step %(number)s", { number: step.number }) }));
    if (form.elements.filelist.checked) {
      list.push({ text: "GetFileList", control: form.elements.filelist, label: "GetFileList" });
    }
    return list;
  }

  function parameter(step) {
    const value = step.verb.value === "GetTranslation" ? step.language.value.trim()
      : step.verb.value === "GetMetadata" ? step.format.value : "";
    return value ? `(${value})` : "";
  }

  function apiQuery() {
    const query = new URLSearchParams();
    query.set("ibi", form.elements.ibi.value);
    for (const verb of chosen()) query.append("verb", verb.text);
    for (const name of ["filepath", "base"]) {
      if (form.elements[name].value.trim()) query.set(name, form.elements[name].value.trim());
    }
    if (form.elements.original.checked) query.set("original", "1");
    for (const line of form.elements.query.value.split(/\r?\n/)) {
      if (line.trim()) query.append("q", line.trim());
    }
    return query;
  }

  // The page's own query: what a submit would send, empty values left out (shorter to bookmark).
  function pageQuery() {
    const query = new URLSearchParams();
    for (const [name, value] of new FormData(form)) {
      if (value !== "") query.append(name, value);
    }
    return query.toString();
  }

  // ---- Controls that cannot combine --------------------------------------------------------------

  // A language or format shows only for its verb; hidden, it is not sent either. One the server
  // found wrong stays, with its message, until the next preview replaces the server's errors.
  function showField(control, wanted) {
    const wrapper = control.closest(".field");
    const shown = wanted || wrapper.classList.contains("has-error");
    wrapper.hidden = !shown;
    control.disabled = !shown;
  }

  function describedBy(control, id, on) {
    const ids = (control.getAttribute("aria-describedby") || "").split(" ").filter((x) => x && x !== id);
    if (on) ids.push(id);
    if (ids.length) control.setAttribute("aria-describedby", ids.join(" "));
    else control.removeAttribute("aria-describedby");
  }

  function syncControls() {
    let shape = "";
    for (const step of steps) {
      showField(step.language, step.verb.value === "GetTranslation");
      showField(step.format, step.verb.value === "GetMetadata");
      const known = Object.hasOwn(rules.unavailable, shape);
      const unavailable = known ? rules.unavailable[shape] : [];
      for (const option of step.verb.options) {
        // The step's own choice stays selectable: if it no longer fits, the API says why next to it.
        option.disabled = unavailable.includes(option.value) && option.value !== step.verb.value;
      }
      const blocked = unavailable.length === Object.keys(rules.symbols).length;
      step.verb.disabled = blocked && !step.verb.value;
      step.fieldset.classList.toggle("blocked", step.verb.disabled);
      const note = known ? rules.notes[shape] || "" : "";
      portalShow(step.note, note);
      step.note.hidden = !note;
      describedBy(step.verb, step.note.id, Boolean(note));
      if (step.verb.value) shape += rules.symbols[step.verb.value] || "";
    }
    const verbs = steps.some((step) => step.verb.value) || form.elements.filelist.checked;
    const pathNote = document.getElementById("filepath-note");
    pathNote.hidden = !(verbs && form.elements.filepath.value.trim());
    describedBy(form.elements.filepath, pathNote.id, !pathNote.hidden);
  }

  function move(step, by) {
    const other = steps[steps.indexOf(step) + by];
    for (const part of ["verb", "language", "format"]) {
      [step[part].value, other[part].value] = [other[part].value, step[part].value];
    }
    syncControls();
    other.verb.focus();
    schedule();
  }

  // ---- Errors next to their fields ---------------------------------------------------------------

  function clearErrors() {
    for (const box of form.querySelectorAll(".field .error")) {
      const control = box.parentElement.querySelector("input, select, textarea");
      describedBy(control, box.id, false);
      control.removeAttribute("aria-invalid");
      box.parentElement.classList.remove("has-error");
      box.remove();
    }
    for (const message of form.querySelectorAll(":scope > p.error")) message.remove();
  }

  // The control an API error names, and the message as the server's page words it.
  function locate(error) {
    const located = (message) => error.position
      ? portalText("%(message)s (at character %(position)s)", { message, position: error.position }) : message;
    if (error.field === "verbs") {
      const verb = chosen()[error.position - 1];
      if (verb) return { control: verb.control, label: verb.label, message: error.message };
    } else if (error.field === "query") {
      return { control: form.elements.query, label: portalText("Query pairs"),
               message: portalText("pair %(number)s: %(problem)s", { number: error.position, problem: error.message }) };
    } else if (form.elements[error.field] instanceof HTMLElement) {
      const control = form.elements[error.field];
      return { control, label: control.labels[0].textContent.trim(), message: located(error.message) };
    }
    return { control: null, label: "", message: located(error.message) };
  }

  function showError(error) {
    const { control, label, message } = locate(error);
    if (!control) {
      const paragraph = document.createElement("p");
      paragraph.className = "error";
      portalShow(paragraph, message);
      form.prepend(paragraph);
      return portalText("Not updated: %(message)s", { message: message.replaceAll("`", "") });
    }
    const wrapper = control.closest(".field");
    const box = document.createElement("div");
    box.className = "error";
    box.id = `${control.id}-error`;
    const paragraph = document.createElement("p");
    portalShow(paragraph, message);
    box.append(paragraph);
    wrapper.append(box);
    wrapper.classList.add("has-error");
    control.setAttribute("aria-invalid", "true");
    describedBy(control, box.id, true);
    // announced, not shown: without the backticks a screen reader would read out
    return portalText("Not updated. %(label)s: %(message)s", { label, message: message.replaceAll("`", "") });
  }

  // ---- The preview -------------------------------------------------------------------------------

  function get(body, key) {
    return key.split(".").reduce((value, part) => (value == null ? value : value[part]), body);
  }

  function draw(body) {
    for (const element of result.querySelectorAll("[data-result]")) {
      element.textContent = get(body, element.dataset.result) ?? "";
    }
    for (const element of result.querySelectorAll("[data-result-copy]")) {
      element.dataset.copy = get(body, element.dataset.resultCopy);
    }
    for (const element of result.querySelectorAll("[data-result-value]")) {
      element.value = get(body, element.dataset.resultValue);
    }
    for (const element of result.querySelectorAll("[data-result-href]")) {
      const value = get(body, element.dataset.resultHref);
      element.href = element.dataset.param
        ? `${element.dataset.path}?${new URLSearchParams({ [element.dataset.param]: value })}`
        : value;
    }
    for (const element of result.querySelectorAll("[data-result-choice]")) {
      element.textContent = element.dataset[get(body, element.dataset.resultChoice)];
    }
    for (const element of result.querySelectorAll("[data-result-code]")) {
      const value = get(body, element.dataset.resultCode);
      const items = value == null || value === "" ? [] : Array.isArray(value) ? value : [value];
      const nodes = [];
      items.forEach((item, index) => {
        if (index) nodes.push(element.dataset.separator);
        const code = document.createElement("code");
        code.textContent = Array.isArray(item) ? item.join("=") : item;
        nodes.push(code);
      });
      if (!nodes.length) {
        const none = document.createElement("em");
        none.textContent = element.dataset.empty;
        nodes.push(none);
      }
      element.replaceChildren(...nodes);
    }
  }

  // The status line is announced (aria-live) whenever it changes; it is shown only when there is no
  // result to look at, as the result itself says the same to the eye.
  function say(text, visible) {
    status.textContent = text;
    status.classList.toggle("visually-hidden", !visible);
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(update, DELAY);
  }

  function remember() {
    const query = pageQuery();
    history.replaceState(null, "", query ? `${form.action}?${query}` : form.action);
  }

  async function update() {
    remember();
    const empty = !form.elements.ibi.value.trim();
    const query = empty ? null : apiQuery().toString();
    if (!empty && query === asked) return;
    if (controller) controller.abort();
    asked = query;
    if (empty) {
      clearErrors();
      syncControls();
      result.hidden = true;
      say(portalText("Type an IBI to see its persistent URL."), true);
      return;
    }
    controller = new AbortController();
    const mine = controller;
    let response;
    let body;
    try {
      response = await fetch(`${form.dataset.api}?${query}`, {
        headers: { Accept: "application/json" },
        signal: mine.signal,
      });
      body = await response.json();
    } catch {
      if (mine.signal.aborted) return;
      asked = null;  // not shown: the same query may be asked again
      say(portalText("The preview is unavailable right now; the Compose button still works."), true);
      return;
    }
    if (mine !== controller) return;  // a newer request is on its way
    clearErrors();
    syncControls();
    remember();  // a control the server had kept for its error may be hidden, and not sent, now
    if (response.ok) {
      draw(body);
      result.hidden = false;
      say(portalText("Updated: %(meaning)s", { meaning: body.meaning[document.documentElement.lang.split("-")[0]] || body.meaning.en }), false);
    } else {
      result.hidden = true;
      say(showError(body.error || { message: portalText("the server answered %(status)s", { status: response.status }) }), true);
    }
  }

  // ---- Wiring ------------------------------------------------------------------------------------

  for (const type of ["input", "change"]) {
    form.addEventListener(type, () => {
      syncControls();
      schedule();
    });
  }
  for (const step of steps) {
    const buttons = step.fieldset.querySelector(".step-move");
    buttons.hidden = false;
    for (const button of buttons.querySelectorAll("button[data-move]")) {
      button.addEventListener("click", () => move(step, Number(button.dataset.move)));
    }
  }
  syncControls();
})();
