// Check references: resolve every IBI found on demand, one POST /api/v1/trace each (progressive
// enhancement: without this script each row keeps its "Trace" link). Each check is a trace and
// counts against the trace rate limit; a refusal (429) is shown on the rows it stops.
"use strict";

(() => {
  const button = document.getElementById("check-all");
  if (!button) return;
  const help = document.getElementById("check-help");
  button.hidden = false;
  if (help) help.hidden = false;

  function show(cell, text, good) {
    const outcome = cell.querySelector(".outcome");
    outcome.textContent = text;
    outcome.classList.toggle("good", good === true);
    outcome.classList.toggle("bad", good === false);
  }

  async function check(cell) {
    show(cell, "checking…", null);
    try {
      const response = await fetch(button.dataset.trace, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ url: cell.dataset.url, archives: button.dataset.archives }),
      });
      const body = await response.json();
      if (response.status === 429) {
        show(cell, `not checked: ${body.error.message}`, false);
        return false;
      }
      if (!response.ok) {
        show(cell, body.error ? body.error.message : `HTTP ${response.status}`, false);
        return true;
      }
      const link = cell.querySelector("a");
      if (body.id) link.href = button.dataset.tracePage.replace("TRACE_ID", encodeURIComponent(body.id));
      link.textContent = "Trace";
      if (body.url) show(cell, "resolves", true);
      else show(cell, body.alert ? body.alert.message : "does not resolve", false);
      return true;
    } catch (error) {
      show(cell, "not checked: the portal did not answer", false);
      return true;
    }
  }

  button.addEventListener("click", async () => {
    button.disabled = true;
    const cells = Array.from(document.querySelectorAll(".found-table td.check"));
    for (const cell of cells) {
      if (!(await check(cell))) {
        cells.slice(cells.indexOf(cell) + 1).forEach((rest) => show(rest, "not checked: too many traces for now", false));
        break;
      }
    }
    button.disabled = false;
  });
})();
