// A running import's page follows it in place: every few seconds it reads the page again and
// copies the parts marked data-live, by their id (how many records are done, the bar, the counts,
// the latest records), into this one; once the import no longer runs it loads the whole page, with every
// record and the report. Only a text that changed is written, so the status line (role="status")
// is read out when there is news. Without this script, the page's link shows the same.
"use strict";

const live = document.querySelector("[data-import-running]");
const EVERY_MS = 2000;

function copyPart(here, there) {
  if (here.tagName === "PROGRESS") {
    here.max = there.max;
    here.value = there.value;
  } else if (here.innerHTML !== there.innerHTML) {
    here.replaceChildren(...there.childNodes);
  }
}

async function follow() {
  let fresh;
  try {
    const answer = await fetch(location.href, { credentials: "same-origin", headers: { Accept: "text/html" } });
    if (!answer.ok) throw new Error(String(answer.status));
    fresh = new DOMParser().parseFromString(await answer.text(), "text/html").querySelector("#run-live");
  } catch {
    setTimeout(follow, EVERY_MS * 3);  // the server is busy or away: ask again later
    return;
  }
  if (!fresh || !fresh.hasAttribute("data-import-running")) {
    location.reload();
    return;
  }
  const ids = (section) => [...section.querySelectorAll("[data-live]")].map((part) => part.id).join(" ");
  if (ids(live) !== ids(fresh)) {
    live.replaceChildren(...fresh.childNodes);  // a part came (the bar, once the source said its size)
  } else {
    fresh.querySelectorAll("[data-live]").forEach((there) => copyPart(document.getElementById(there.id), there));
  }
  setTimeout(follow, EVERY_MS);
}

if (live) setTimeout(follow, EVERY_MS);
