"""Traces carry their size, so that the stored ones can be kept within a byte budget
(``IBIPORTAL_TRACE_BYTES``) without reading their bodies.

Revision ID: 0003
Revises: 0002
"""
import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("trace", sa.Column("size", sa.Integer, nullable=False, server_default=sa.text("0")))
    if op.get_bind().dialect.name == "sqlite":  # length() of TEXT counts characters, of a BLOB bytes
        op.execute("UPDATE trace SET size = length(CAST(body AS BLOB))")
    else:
        op.execute("UPDATE trace SET size = octet_length(body)")
