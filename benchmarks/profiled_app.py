"""The portal with a profiler of every thread, for ``benchmarks/references.py --profile``.

A reference check resolves on a pool of threads (and its messages travel on the fan-out's
thread), so cProfile, which sees only the thread it was enabled on, sees little of it; a sampling
profiler that keeps the stacks holding the interpreter lock (py-spy ``--gil``) charged whole
seconds to the cheap calls after which a thread takes the lock back (reading the thread's CPU
clock, SQLAlchemy's cache keys). yappi counts each function's CPU time on every thread, at about
four times the check's cost, the same for every function. ``GET /_bench/profile/start`` clears
and starts it; ``GET /_bench/profile/stop`` stops it and answers the top entries, by own and by
cumulative time, as text.

Not part of the product: only ``gunicorn … benchmarks.profiled_app:app`` serves it, and yappi is a
benchmark-only tool (``benchmarks/requirements.txt``).
"""
from __future__ import annotations

import gc
import time

import yappi
from flask import Response, request

from ibiportal import create_app

#: Entries of each listing.
TOP = 45

app = create_app()
#: The garbage collector's passes while profiling: (generation, CPU seconds), appended by :func:`_timed`.
_COLLECTIONS: list[tuple[int, float]] = []
_STARTED: list[float] = []


def _timed(phase: str, info: dict) -> None:
    """Time each pass of the garbage collector (it runs inside whatever call allocated last, so
    the profile spreads it over them)."""
    if phase == "start":
        _STARTED[:] = [time.thread_time()]
    elif _STARTED:
        _COLLECTIONS.append((info["generation"], time.thread_time() - _STARTED.pop()))


@app.get("/_bench/profile/start")
def start_profile():
    """``?clock=wall`` counts each function's elapsed time instead, waits included: where a
    resolution waits (the Archives, the database's write lock, a pool), not what it computes."""
    yappi.stop()
    yappi.clear_stats()
    yappi.set_clock_type("wall" if request.args.get("clock") == "wall" else "cpu")
    _COLLECTIONS.clear()
    if _timed not in gc.callbacks:
        gc.callbacks.append(_timed)
    yappi.start(builtins=False, profile_threads=True)
    return Response("started\n", mimetype="text/plain")


@app.get("/_bench/profile/stop")
def stop_profile():
    """The top entries, by own time then by cumulative time, each as a share of every thread's CPU."""
    yappi.stop()
    gc.callbacks.remove(_timed)
    stats = yappi.convert2pstats(yappi.get_func_stats())
    total = stats.total_tt
    lines = [f"{total:.2f} s of {yappi.get_clock_type()} time in the functions profiled, every thread"]
    for generation in range(3):
        passes = [seconds for each, seconds in _COLLECTIONS if each == generation]
        lines.append(f"garbage collector, generation {generation}: {len(passes)} passes, {sum(passes):.3f} s "
                     f"({sum(passes) / total * 100:.1f} %)")
    for key, title in (("tottime", "own time"), ("cumulative", "cumulative time (a pool thread's call counted once)")):
        lines.append(f"-- by {title}: own % / cumulative % / calls / function")
        rows = sorted(stats.stats.items(), key=lambda item: item[1][2] if key == "tottime" else item[1][3], reverse=True)
        for (path, line, name), (_, calls, own, cumulative, _) in rows[:TOP]:
            lines.append(f"{own / total * 100:5.1f} {cumulative / total * 100:6.1f} {calls:7d}  {name} ({_short(path)}:{line})")
    yappi.clear_stats()
    return Response("\n".join(lines) + "\n", mimetype="text/plain")


def _short(path: str) -> str:
    """``ibiportal/resolver/engine.py``, ``sqlalchemy/engine/base.py``, ``python3.11/threading.py``."""
    if "/site-packages/" in path:
        return path.split("/site-packages/", 1)[1]
    if "/ibiportal/" in path:
        return "ibiportal/" + path.rsplit("/ibiportal/", 1)[1]
    return "/".join(path.split("/")[-2:])
