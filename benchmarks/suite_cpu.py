"""Where a command's CPU goes, per kind of process, including the processes it never waits for.

``/usr/bin/time`` counts a command's CPU and that of the children it waited for; Chromium's
browser, renderer and GPU processes are not among them, and were half of the test suite's CPU.
This samples every process of the machine (``/proc/<pid>/stat``) every 0.2 s while the command
runs, and sums each one's CPU from its first sample (or from the start) to its last, by name
(Chromium's by ``--type``). A process that lives less than a sample is missed; the machine's
total from ``/proc/stat`` is printed beside it, so that what was missed shows.

Run: ``.venv/bin/python benchmarks/suite_cpu.py .venv/bin/python -m pytest -q tests/browser/test_browser_everyday.py``
"""
from __future__ import annotations

import collections
import os
import re
import subprocess
import sys
import time

SAMPLE_SECONDS = 0.2
TICKS = os.sysconf("SC_CLK_TCK")


def machine_ticks() -> int:
    """CPU the whole machine spent, all cores: user, nice, system, irq, softirq and steal."""
    with open("/proc/stat") as stat:
        fields = [int(value) for value in stat.readline().split()[1:]]
    return sum(fields[i] for i in (0, 1, 2, 5, 6, 7))


def processes() -> dict[str, tuple[str, int]]:
    """Each process's name (a Chromium process's with its ``--type``) and CPU ticks so far."""
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                text = stat.read()
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                command = cmdline.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # it ended meanwhile
            continue
        name = text[text.index("(") + 1:text.rindex(")")]
        fields = text[text.rindex(")") + 2:].split()
        kind = re.search(r"--type=(\S+)", command)
        found[pid] = (f"{name}:{kind[1]}" if kind else name, int(fields[11]) + int(fields[12]))
    return found


def main(command: list[str]) -> None:
    at_start, machine_before = processes(), machine_ticks()
    first: dict[str, int] = {}
    last: dict[str, tuple[str, int]] = {}
    started = time.monotonic()
    child = subprocess.Popen(command)
    while child.poll() is None:
        for pid, (name, ticks) in processes().items():
            first.setdefault(pid, at_start[pid][1] if pid in at_start else 0)
            last[pid] = (name, ticks)
        time.sleep(SAMPLE_SECONDS)
    wall, machine = time.monotonic() - started, (machine_ticks() - machine_before) / TICKS
    by_name: collections.Counter[str] = collections.Counter()
    for pid, (name, ticks) in last.items():
        by_name[name] += (ticks - first[pid]) / TICKS
    print(f"exit {child.returncode}; {wall:.1f} s of wall time; the machine's CPU {machine:.1f} s "
          f"({machine / wall / os.cpu_count():.0%} of {os.cpu_count()} cores); sampled {sum(by_name.values()):.1f} s:")
    for name, seconds in by_name.most_common(12):
        print(f"{seconds:9.1f} s  {name}")


if __name__ == "__main__":
    main(sys.argv[1:])
