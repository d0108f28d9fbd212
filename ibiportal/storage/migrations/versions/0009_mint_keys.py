"""Idempotency keys of mint requests, so that a mint whose answer was lost can be retried without
minting twice (``mint_key``).

Revision ID: 0009
Revises: 0008
"""
import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "mint_key",
        sa.Column("scope", sa.Text, primary_key=True),
        sa.Column("idempotency_key", sa.Text, primary_key=True),
        sa.Column("fingerprint", sa.Text, nullable=False),
        sa.Column("wanted", sa.Integer, nullable=False),
        sa.Column("ibips", sa.Text, nullable=False),
        sa.Column("created_at", sa.Text, nullable=False),
    )
    op.create_index("mint_key_created_at", "mint_key", ["created_at"])

