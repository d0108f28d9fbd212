"""axe-core (Deque's accessibility engine, ``node_modules/axe-core``, pinned in package-lock.json)
run inside a page of the browser tests, and the page's own width measured.

axe is put in every document of the walk's browser context as an init script (:func:`install`),
which Playwright adds through the DevTools protocol: the portal's Content-Security-Policy, which
allows the portal's own scripts only, does not govern it, and Chromium compiles it once for
every page after the first (0.05 s a page, against 0.15 s evaluated into each page).

What axe's run is spared, at no loss, since a walk runs it some two hundred times:

* rules that can find nothing worse than moderate (axe's own ``impact`` of each rule: ``region``,
  ``landmark-*``, ``heading-order``…), since only serious and critical violations count;
* the site's header and footer, the same on every page, outside the first page audited
  (``whole``): the rest of the walk audits what is between them;
* the stylesheets' download (``preload``), which only ``css-orientation-lock`` reads: that rule
  is left out, and ``test_page_checks`` reads the stylesheets for what it looks for.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import BrowserContext, Page

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
COUNTED = ("serious", "critical")
NOT_RUN = ("css-orientation-lock",)
SAME_ON_EVERY_PAGE = ("header.site", "footer.site")

RUN = """async ([counted, notRun, exclude]) => {
  if (!window.__gated) {
    window.__gated = axe.getRules().map(rule => rule.ruleId).filter(id => {
      const rule = axe._audit.rules.find(candidate => candidate.id === id);
      return rule.enabled !== false && !notRun.includes(id) && (!rule.impact || counted.includes(rule.impact));
    });
  }
  const results = await axe.run({exclude: exclude.map(selector => [selector])}, {
    runOnly: {type: "rule", values: window.__gated}, resultTypes: ["violations"], preload: false,
  });
  return results.violations.filter(violation => counted.includes(violation.impact)).map(violation => ({
    rule: violation.id, impact: violation.impact, help: violation.help,
    nodes: violation.nodes.slice(0, 5).map(node => node.target.join(" ") + ": " + (node.failureSummary || "").split("\\n").slice(1).join(" ")),
  }));
}"""
"""axe on the document (less what ``exclude`` names), with the rules that can find serious or
critical violations only."""

WIDTH = """() => {
  const page = document.documentElement;
  const named = (element) => element.tagName.toLowerCase() + (element.classList.length ? "." + element.classList[0] : "");
  const clips = (element) => ["auto", "scroll", "hidden", "clip"].includes(getComputedStyle(element).overflowX);
  const boxes = [];
  for (const element of document.querySelectorAll("body *")) {
    if (element.scrollWidth > element.clientWidth + 1 && ["auto", "scroll"].includes(getComputedStyle(element).overflowX)) {
      const hint = element.previousElementSibling;
      boxes.push({box: named(element), focusable: element.tabIndex >= 0,
                  named: !!(element.getAttribute("aria-label") || element.getAttribute("aria-labelledby")),
                  hinted: !!hint && hint.classList.contains("scroll-hint") && hint.checkVisibility()});
    }
  }
  const wider = [];
  if (page.scrollWidth > innerWidth) {
    for (const element of document.querySelectorAll("body *")) {
      const right = Math.round(element.getBoundingClientRect().right);
      if (right <= innerWidth + 1 || getComputedStyle(element).position === "fixed") continue;
      // what clips it: a box that scrolls or hides, between it and its containing block when it
      // is positioned absolutely (a box that does not contain it does not clip it)
      const containing = getComputedStyle(element).position === "absolute" ? element.offsetParent : null;
      let inside = element.parentElement;
      while (inside && inside !== document.body && !(clips(inside) && (!containing || inside.contains(containing)))) inside = inside.parentElement;
      if (!inside || inside === document.body) wider.push(`${named(element)} ${right}px`);
    }
  }
  return {page: page.scrollWidth, window: innerWidth, wider: wider.slice(0, 5), boxes};
}"""
"""The page's width against the window's, what sticks out of it when it is wider, and every box
that scrolls sideways inside the page: whether a keyboard reaches it, whether it is named, and
whether it says it scrolls (a visible ``.scroll-hint`` just before it, written by portal.js)."""


@dataclass(frozen=True)
class Width:
    """What :data:`WIDTH` measured."""

    page: int
    window: int
    wider: list[str]
    boxes: list[dict]

    def overflows(self) -> bool:
        return self.page > self.window

    def silent_boxes(self) -> list[str]:
        """The boxes that scroll sideways without saying so, or that a keyboard cannot scroll."""
        return [box["box"] for box in self.boxes if not (box["hinted"] and box["focusable"] and box["named"])]


def install(context: BrowserContext) -> None:
    """axe in every document the context opens from now on."""
    context.add_init_script(path=str(AXE))


def violations(page: Page, whole: bool = False) -> list[dict]:
    """axe's serious and critical violations on the page as it is now; the site's header and
    footer audited too when ``whole``."""
    return page.evaluate(RUN, [list(COUNTED), list(NOT_RUN), [] if whole else list(SAME_ON_EVERY_PAGE)])


def width(page: Page) -> Width:
    return Width(**page.evaluate(WIDTH))
