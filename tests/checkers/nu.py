"""The Nu HTML checker (vnu.jar from npm's ``vnu-jar``, pinned in package-lock.json) on Debian's Java.

One run of Java checks every document at once: Java's start and the checker's own (its schemas)
cost about a second, each document then a few milliseconds. ``-Xss512k`` is the stack the
checker asks for (without it, it says so and starts itself again); ``TieredStopAtLevel=1``
keeps the JIT to its quick tier, which is what a run this short gains from (46 documents: 1.5 s
against 3.4 s).
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

VNU = Path(__file__).resolve().parents[2] / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
JAVA = ["java", "-Xss512k", "-XX:TieredStopAtLevel=1", "-jar", str(VNU)]


def errors(documents: dict[str, str], folder: Path) -> list[tuple[str, int | None, str, str]]:
    """The checker's errors in ``documents`` (name → HTML), written into ``folder`` first: each as
    the document's name, the line, the message and the markup it is about."""
    for name, html in documents.items():
        (folder / f"{name}.html").write_text(html, encoding="utf-8")
    run = subprocess.run([*JAVA, "--format", "json", "--exit-zero-always", *sorted(str(path) for path in folder.glob("*.html"))],
                         capture_output=True, text=True, timeout=300)
    report = json.loads(run.stderr)
    return [(Path(message.get("url", "")).stem, message.get("lastLine"), message["message"], message.get("extract", "").strip())
            for message in report["messages"] if message["type"] in ("error", "non-document-error")]
