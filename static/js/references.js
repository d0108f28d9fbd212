// Check references: the whole list is checked in one request, POST /api/v1/extract?resolve=1,
// whose entries stream in (NDJSON) as they are resolved; each row shows its outcome, the
// progress bar and the summary chart follow. A row is checked once it has an outcome, an error
// included (Archives that disagree answered, 409), unless the per-IBI limit left it unchecked
// (error 429). "Only problems" hides the rows that resolved without a warning; "Re-check
// unresolved" sends again only the rows not checked and those whose error may pass (the
// statuses of words.recheckStatuses: the portal failed, no Archive answered in time). The downloads post the outcomes
// received, so the CSV and JSON carry them. Without this script each row keeps its Trace link.
// The words it writes come in the page's language from the panel's data-words (the outcome
// names, and each sentence with a count as its "one" and "other" forms, chosen by the page
// language's plural rules).
"use strict";

(() => {
  const panel = document.getElementById("check");
  if (!panel) return;
  const rows = Array.from(document.querySelectorAll(".found-table tbody tr"));
  const table = document.querySelector(".found-table");
  const progress = document.getElementById("check-progress");
  const status = document.getElementById("check-status");
  const recheck = document.getElementById("recheck");
  const onlyProblems = document.getElementById("only-problems");
  const outcomes = ["found", "deleted", "not found", "invalid", "error"];
  const words = JSON.parse(panel.dataset.words);
  const language = document.documentElement.lang || "en";
  const plural = new Intl.PluralRules(language);
  const number = (n) => n.toLocaleString(language);
  const counted = (forms, n) => (plural.select(n) === "one" ? forms.one : forms.other).replace("{n}", number(n));
  const fill = (sentence, values) => sentence.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? values[name] : whole));
  // An error with 429 is the per-IBI limit: that row was not checked; any other error was.
  const label = (resolution) => words.outcomes[
    resolution.outcome === "error" && resolution.status === words.notCheckedStatus ? "not checked" : resolution.outcome];
  const isError = (row, statuses) => row.dataset.outcome === "error" && statuses.includes(Number(row.dataset.status));
  const notChecked = (row) => !row.dataset.outcome || isError(row, [words.notCheckedStatus]);
  const unresolved = (row) => Boolean(row.dataset.recheck) && (!row.dataset.outcome || isError(row, words.recheckStatuses));
  const resolutions = rows.map(() => null);
  panel.hidden = false;

  function counts() {
    const tally = Object.fromEntries(outcomes.map((outcome) => [outcome, 0]));
    rows.forEach((row) => { if (!notChecked(row)) tally[row.dataset.outcome] += 1; });
    return tally;
  }

  // The summary: each outcome's count, and the chart's bars as shares of every entry.
  function summarise() {
    const tally = counts();
    let x = 0;
    outcomes.forEach((outcome) => {
      panel.querySelector(`[data-count="${outcome}"]`).textContent = number(tally[outcome]);
      const width = rows.length ? (100 * tally[outcome]) / rows.length : 0;
      const bar = panel.querySelector(`rect[data-outcome="${outcome}"]`);
      bar.setAttribute("x", String(x));
      bar.setAttribute("width", String(width));
      x += width;
    });
    progress.value = rows.filter((row) => !notChecked(row)).length;
    progress.max = rows.length;
    const open = rows.filter(unresolved).length;
    recheck.disabled = open === 0;
    recheck.textContent = open ? counted(words.recheckCount, open) : words.recheck;
    return tally;
  }

  function tracePage(permalink) {
    const id = permalink.split("/").pop();
    return panel.dataset.tracePage.replace("TRACE_ID", encodeURIComponent(id));
  }

  function show(row, resolution) {
    resolutions[Number(row.dataset.index)] = resolution;
    row.dataset.outcome = resolution.outcome;
    row.dataset.status = resolution.status === null ? "" : String(resolution.status);
    const cell = row.querySelector("td.check");
    const outcome = cell.querySelector(".outcome");
    outcome.textContent = resolution.status ? `${label(resolution)} (${resolution.status})` : label(resolution);
    outcome.className = `outcome o-${resolution.outcome.replace(" ", "-")}`;
    const reason = cell.querySelector(".reason");
    if (reason) portalShow(reason, resolution.reason);
    const link = cell.querySelector("a.trace");
    if (link && resolution.trace) link.href = tracePage(resolution.trace);
  }

  // One check: the entries of `text`, row i of the page being rowOf(i) of the answer.
  async function check(text, rowOf, expected) {
    recheck.disabled = true;
    status.textContent = counted(words.checkingCount, expected);
    let response;
    try {
      response = await fetch(panel.dataset.api, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/x-ndjson" },
        body: JSON.stringify({ text }),
      });
    } catch (error) {
      status.textContent = words.noAnswer;
      summarise();
      return;
    }
    if (!response.ok) {
      const body = await response.json().catch(() => null);
      status.textContent = fill(words.refused, { reason: body && body.error ? body.error.message : `HTTP ${response.status}` });
      summarise();
      return;
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let pending = 0;
    const handle = (line) => {
      if (!line.trim()) return;
      const item = JSON.parse(line);
      if (item.resolution) {
        const row = rowOf(item.index);
        if (row) show(row, item.resolution);
        pending += 1;
        if (pending % 10 === 0) summarise();
      }
    };
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      const lines = buffer.split("\n");
      buffer = lines.pop();
      lines.forEach(handle);
    }
    handle(buffer);
    const tally = summarise();
    const open = rows.filter(notChecked).length;
    const values = { found: number(tally.found), deleted: number(tally.deleted), not_found: number(tally["not found"]),
      invalid: number(tally.invalid), errors: counted(words.errorCount, tally.error),
      open: open ? counted(words.openCount, open) : "" };
    status.textContent = fill(words.checked, values);
  }

  onlyProblems.addEventListener("change", () => table.classList.toggle("only-problems", onlyProblems.checked));

  recheck.addEventListener("click", () => {
    const open = rows.filter(unresolved);
    open.forEach((row) => {
      delete row.dataset.outcome;
      delete row.dataset.status;
      row.querySelector("td.check .outcome").textContent = words.checking;
    });
    check(open.map((row) => row.dataset.recheck).join("\n"), (index) => open[index], open.length);
  });

  document.querySelectorAll("form.download").forEach((form) => {
    form.addEventListener("submit", () => {
      form.querySelector("input[name='resolutions']").value = JSON.stringify(resolutions);
    });
  });

  summarise();
  const text = document.querySelector("form.download input[name='text']").value;
  check(text, (index) => rows[index], rows.filter((row) => row.dataset.recheck).length);
})();
