"""The Nu HTML checker (vnu.jar from npm's ``vnu-jar``, pinned in package-lock.json) on Debian's Java.

One run of Java checks every document at once: Java's start and the checker's own (its schemas)
cost about a second, each document then a few milliseconds. Java's options: a thread stack of
4 MB, for the checker's schema evaluation recurses with the document's depth (with 512 KB, its
own advice, and with 1 MB it stopped on a stack overflow among the portal's 350 pages); the JIT
kept to its quick tier (``TieredStopAtLevel=1``), which is what a run this short gains from
(46 documents: 1.5 s against 3.4 s).
"""
from __future__ import annotations

import json
import subprocess
from collections.abc import Collection
from pathlib import Path

VNU = Path(__file__).resolve().parents[2] / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
JAVA = ["java", "-Xss4m", "-XX:TieredStopAtLevel=1", "-jar", str(VNU)]


def errors(documents: dict[str, str], folder: Path, accepted: Collection[str] = ()) -> list[tuple[str, int | None, str, str]]:
    """The checker's errors in ``documents`` (name → HTML), written into ``folder`` first, except
    the messages ``accepted``: each as the document's name, the line, the message and the markup
    it is about."""
    for name, html in documents.items():
        (folder / f"{name}.html").write_text(html, encoding="utf-8")
    run = subprocess.run([*JAVA, "--format", "json", "--exit-zero-always", *sorted(str(path) for path in folder.glob("*.html"))],
                         capture_output=True, text=True, timeout=300)
    assert run.stderr.startswith("{"), run.stderr[:2000]
    return [(Path(message.get("url", "")).stem, message.get("lastLine"), message["message"], message.get("extract", "").strip())
            for message in json.loads(run.stderr)["messages"]
            if message["type"] in ("error", "non-document-error") and message["message"] not in accepted]
