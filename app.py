"""Entry point for ``flask --app app`` and ``gunicorn app:app``."""
import gc

from ibiportal import create_app

app = create_app()
# What the imports and create_app made lives as long as the process (a gunicorn worker, a CLI
# command): frozen, the collector never walks it again, neither in a request's collection nor at
# exit, where the interpreter's teardown walked it for about a third of a command's CPU
# (docs/test-time.md).
gc.freeze()
