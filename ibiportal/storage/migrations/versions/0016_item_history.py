"""Every change of an own item recorded (``item_history``): who, when, what. URLib shows each
item's "History (UTC)"; identifier services are asked for the same (ibiportal.storage.history).

Revision ID: 0016
Revises: 0015
"""
import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "item_history",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("ibi", sa.Text, nullable=False),
        sa.Column("at", sa.Text, nullable=False),
        sa.Column("actor_kind", sa.Text, nullable=False),
        sa.Column("actor_name", sa.Text, nullable=False),
        sa.Column("action", sa.Text, nullable=False),
        sa.Column("details", sa.Text, nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_index("item_history_ibi", "item_history", ["ibi", "id"])


def downgrade() -> None:
    op.drop_index("item_history_ibi", "item_history")
    op.drop_table("item_history")
