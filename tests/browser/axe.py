"""axe-core in the browser tests: the npm package's ``axe.min.js`` (4.14.1, MPL-2.0, its licence
beside it in ``fixtures/axe/``) is vendored, so nothing is fetched at test time.

``axe_violations(page)`` injects it through the DevTools protocol (``page.evaluate``, which the
site's Content-Security-Policy does not govern) and returns the violations of the WCAG 2.x A and
AA rules at or above an impact, each as one readable line per element.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

AXE_JS = Path(__file__).parent / "fixtures" / "axe" / "axe.min.js"
RULE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
SERIOUS = ("serious", "critical")


@cache
def _axe_source() -> str:
    return AXE_JS.read_text(encoding="utf-8")


def axe_run(page: Any) -> list[dict[str, Any]]:
    """axe's violations on the page as it is now (every node, not only the first)."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(_axe_source())
    return list(
        page.evaluate(
            """async (tags) => {
              const results = await axe.run(document, {
                runOnly: {type: 'tag', values: tags},
                resultTypes: ['violations'],
              });
              return results.violations.map((v) => ({
                id: v.id,
                impact: v.impact,
                help: v.help,
                nodes: v.nodes.map((n) => ({
                  target: n.target.join(' '),
                  impact: n.impact,
                  summary: n.failureSummary,
                })),
              }));
            }""",
            RULE_TAGS,
        )
    )


def axe_violations(page: Any, impacts: tuple[str, ...] = SERIOUS) -> list[str]:
    """One line per failing element of a rule whose impact is in ``impacts``."""
    lines = []
    for violation in axe_run(page):
        for node in violation["nodes"]:
            if (node["impact"] or violation["impact"]) in impacts:
                summary = " ".join((node["summary"] or "").split())[:300]
                lines.append(f"{violation['id']} {node['target']}: {summary}")
    return lines
