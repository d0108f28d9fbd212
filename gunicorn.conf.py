"""gunicorn settings for running IBI Portal in production.

Run from the repository root: ``.venv/bin/gunicorn -c gunicorn.conf.py`` (``bin/run``, which
``bin/serve`` runs after setting up, does that behind nginx: ``nginx.conf.template``). Options
given on the command line override these.
The ``IBIPORTAL_*`` variables below set the server; the portal's own settings are read by
``ibiportal/config.py`` in each worker. Measured effects: ``benchmarks/cache.py`` and
``benchmarks/load.py``.
"""
from __future__ import annotations

import gc
import os
import shutil
import tempfile
from pathlib import Path

from ibiportal.config import ACCESS_LOG_FORMAT, Settings

_portal = Settings.from_environment()  # a bad IBIPORTAL_* value stops the start, named

# The application: app.py's ``app = create_app()``, imported by each worker.
wsgi_app = "app:app"

# Where to listen when run alone. Loopback by default: in production a reverse proxy terminates
# TLS in front of the portal (set IBIPORTAL_TRUSTED_PROXIES to its address). Several addresses:
# comma-separated. bin/run gives nginx this address and gunicorn a loopback port (--bind): a
# gthread worker gives each connection a thread while it sends its request, so 20 clients sending
# a byte every 2 s held both workers' 16 threads; nginx reads requests whole first.
bind = [part.strip() for part in _portal.bind.split(",") if part.strip()]

# Worker processes: gunicorn's rule of thumb, 2 x cores + 1 (one computes while another waits
# on the network or the database), capped (ibiportal.config.MAX_DEFAULT_WORKERS). Processes, not
# only threads, because Python runs one thread at a time per process.
workers = _portal.workers

# Threads per worker (IBIPORTAL_THREADS, default 8): a resolution mostly WAITS for Archives
# (up to its 10 s deadline, engine.ResolverSettings), and a sync worker would serve nobody
# meanwhile. The resolver's pool of threads asking Archives is sized from the same number
# (ibiportal/application/__init__.py), so set it here, not with --threads.
worker_class = "gthread"
threads = _portal.threads

# A worker whose main loop stays silent this long is killed and replaced. Longer than the
# longest request: a resolution ends by its 10 s deadline, acknowledgment included.
timeout = 30
# The longest request line gunicorn reads (its maximum; its default, 4094, refused a query value
# of 4,096 characters with an HTML 414 before the portal's edge could answer its own 400 naming
# the field: web/edge.py reads values up to 4,096 characters).
limit_request_line = 8190

# On a restart or shutdown, requests in flight get this long to finish: a resolution's deadline
# (10 s) with room to spare, so a deploy does not cut resolutions short.
graceful_timeout = 15

# Seconds an idle keep-alive connection stays open: a reverse proxy or a client following
# several persistent URLs reuses it instead of opening one per request (gunicorn's default is 2).
keepalive = 5

# Each worker is replaced after this many requests (+ a random part, so they do not restart
# together): memory fragmentation or a slow leak can never grow without bound. A start costs a
# worker about 1-2 s of CPU (importing the app); at 25,000 a worker serving 1,300 cached hits a
# second restarted every 20 s, 5 % of a minute's CPU. At 200,000, 3,000 requests a second on two
# cores restart a worker about once a minute, under 2 % (benchmarks/cache.py measures it); the
# load test (benchmarks/load.py) shows a worker's memory flat long before that.
max_requests = 200_000
max_requests_jitter = 20_000

# No preloading: each worker imports the app after the fork, so no thread pool, SQLite
# connection or HTTP connection pool is ever shared between processes.
preload_app = False

# The worker heartbeat file in memory: on a disk-backed temporary directory its fchmod can
# block a worker (gunicorn's documentation, "blocking os.fchmod").
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None

# gunicorn's control socket ($HOME/.gunicorn/gunicorn.ctl by default) is not used by the portal,
# and two portals on one machine (a demo and a test run) would fight over that one path.
control_socket_disable = True

# Which proxies may say the request came over HTTPS (X-Forwarded-Proto): the same addresses
# the resolver believes X-Forwarded-For from (IBIPORTAL_TRUSTED_PROXIES, Table 8.6); by
# default none. Behind one, url_root, the persistent URLs handed out and the HSTS header
# follow the scheme the user saw.
forwarded_allow_ips = ",".join(_portal.trusted_proxies)

# Logs on stdout/stderr, for the service manager (journald, docker) to keep.
errorlog = "-"
loglevel = "info"
accesslog = "-"
# Every line of both logs passes ibiportal/web/log_redaction.py, which blanks the value of any
# "...key=" query pair: registration keys (Table 7.1) travel in the resolver service's queries.
logger_class = "ibiportal.web.log_redaction.RedactingGunicornLogger"
# The access log line: client, time, method, PATH WITHOUT QUERY, status, size, milliseconds,
# whether a resolution was served from the cache, user agent, and X-Forwarded-For (behind nginx
# the client, "h" being nginx; nginx writes it, so a client cannot). No query string at all (keys
# again, and the redaction then has nothing to look at); no Referer: a trace permalink (a
# capability) would land there.
# The logger writes this line itself, field by field (ibiportal/web/access_log.py): gunicorn's
# generic writer and the key filter over the whole line were a third of a cached redirect's CPU.
access_log_format = ACCESS_LOG_FORMAT

# Prometheus metrics summed over the workers (ibiportal/metrics.py, GET /metrics): each worker
# keeps its values in files of this folder, which must be empty when the portal starts (a dead
# run's files would be summed in). bin/run gives a fresh one; without it, one is made here and
# removed when gunicorn stops. Set before any worker, or this process, imports prometheus-client.
_made_metrics_folder = not os.environ.get("PROMETHEUS_MULTIPROC_DIR")
if _made_metrics_folder:
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="ibiportal-metrics-")
METRICS_FOLDER = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])


def on_starting(server) -> None:  # noqa: ARG001 - gunicorn's hook
    """A folder given by the operator starts empty, as prometheus-client asks."""
    METRICS_FOLDER.mkdir(parents=True, exist_ok=True)
    for leftover in METRICS_FOLDER.glob("*.db"):
        leftover.unlink()


def when_ready(server) -> None:  # noqa: ARG001 - gunicorn's hook
    """The arbiter's objects frozen (this file imports the portal's settings, and with them its
    modules), as each worker's are by ``app.py``: the collector never walks them again, and the
    arbiter's exit took seconds of CPU without it (docs/test-time.md)."""
    gc.freeze()


def child_exit(server, worker) -> None:  # noqa: ARG001 - gunicorn's hook
    """A worker that ended (replaced after max_requests, killed, stopped): its live gauges go;
    its counters keep counting in the sums (prometheus-client's multiprocess mode)."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(server) -> None:  # noqa: ARG001 - gunicorn's hook
    if _made_metrics_folder:
        shutil.rmtree(METRICS_FOLDER, ignore_errors=True)
