"""Prefix pairs learnt from Archives' answers are claims, not facts: each stored pair gets a
standing (confirmed, suggested or rejected). Pairs learnt before this revision had been used as
facts; they become suggestions, for an administrator to confirm or reject.

Revision ID: 0019
Revises: 0018
"""
import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("prefix_pair") as batch:
        batch.add_column(sa.Column("status", sa.Text, nullable=False, server_default=sa.text("'confirmed'")))
    op.execute("UPDATE prefix_pair SET status = 'suggested' WHERE archive IS NOT NULL")


def downgrade() -> None:
    op.execute("DELETE FROM prefix_pair WHERE status = 'rejected'")
    with op.batch_alter_table("prefix_pair") as batch:
        batch.drop_column("status")
