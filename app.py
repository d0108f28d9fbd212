"""Entry point for ``flask --app app`` and ``gunicorn app:app``."""
from ibiportal import create_app

app = create_app()
