"""axe-core (Deque's accessibility engine, ``node_modules/axe-core``, pinned in package-lock.json)
run inside a page of the browser tests, and the page's own width measured.

axe is evaluated in the page through the DevTools protocol, which the portal's
Content-Security-Policy does not govern (a ``<script>`` added to the page would be refused: the
policy allows the portal's own scripts only). Only the violations whose impact is serious or
critical count; rules that can find nothing worse than moderate (axe's own ``impact`` of each
rule: ``region``, ``landmark-*``, ``heading-order``…) are not run, which spares a third of axe's
time on a long page (the API docs).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Page

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
COUNTED = ("serious", "critical")

RUN = """async (counted) => {
  if (!window.__gated) {
    window.__gated = axe.getRules().map(rule => rule.ruleId).filter(id => {
      const rule = axe._audit.rules.find(candidate => candidate.id === id);
      return rule.enabled !== false && (!rule.impact || counted.includes(rule.impact));
    });
  }
  const results = await axe.run(document, {
    runOnly: {type: "rule", values: window.__gated}, resultTypes: ["violations"], selectors: true,
  });
  return results.violations.filter(violation => counted.includes(violation.impact)).map(violation => ({
    rule: violation.id, impact: violation.impact, help: violation.help,
    nodes: violation.nodes.slice(0, 5).map(node => node.target.join(" ") + ": " + (node.failureSummary || "").split("\\n").slice(1).join(" ")),
  }));
}"""
"""axe on the whole document, the rules that can find serious or critical violations only."""

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


def violations(page: Page) -> list[dict]:
    """axe's serious and critical violations on the page as it is now (axe put in first)."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.evaluate(_source())
    return page.evaluate(RUN, list(COUNTED))


def width(page: Page) -> Width:
    return Width(**page.evaluate(WIDTH))


_SOURCE: list[str] = []


def _source() -> str:
    if not _SOURCE:
        _SOURCE.append(AXE.read_text(encoding="utf-8"))
    return _SOURCE[0]
