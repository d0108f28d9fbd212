"""The JSON API under ``/api/v1/``: the same operations as the pages and the CLI."""
