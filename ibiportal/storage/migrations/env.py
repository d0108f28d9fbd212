"""Alembic's entry point: runs the migrations on the connection ``upgrade`` hands it."""
from alembic import context

from ibiportal.storage.schema import metadata

context.configure(connection=context.config.attributes["connection"], target_metadata=metadata)
with context.begin_transaction():
    context.run_migrations()
