"""The own items' target checks and every item's usage.

``target_check`` keeps, per own item, the last check of its target URL and the streak of
consecutive failures (an item is reported failing only after IBIPORTAL_TARGET_FAILURES of
them); ``target_check_result`` every check's result, the newest few per item. ``usage_day``
counts the resolutions of each item per UTC day and modifier kind, ``usage_citing`` the
relative-link activations of each item per citing item (ibiportal.storage.usage). No address or
user agent is kept anywhere.

Revision ID: 0021
Revises: 0020
"""
import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "target_check",
        sa.Column("ibi", sa.Text, primary_key=True),
        sa.Column("target_url", sa.Text, nullable=False),
        sa.Column("checked_at", sa.Text, nullable=False),
        sa.Column("outcome", sa.Text, nullable=False),
        sa.Column("status", sa.Integer),
        sa.Column("detail", sa.Text),
        sa.Column("detail_message", sa.Text),
        sa.Column("moved_to", sa.Text),
        sa.Column("redirect_status", sa.Integer),
        sa.Column("failures", sa.Integer, nullable=False, server_default=sa.text("0")),
        sa.Column("failing_since", sa.Text),
        sa.Column("working_at", sa.Text),
    )
    op.create_table(
        "target_check_result",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("ibi", sa.Text, nullable=False),
        sa.Column("target_url", sa.Text, nullable=False),
        sa.Column("checked_at", sa.Text, nullable=False),
        sa.Column("outcome", sa.Text, nullable=False),
        sa.Column("status", sa.Integer),
        sa.Column("detail", sa.Text),
        sa.Column("location", sa.Text),
        sqlite_autoincrement=True,
    )
    op.create_index("target_check_result_ibi", "target_check_result", ["ibi", "id"])
    op.create_table(
        "usage_day",
        sa.Column("ibi", sa.Text, primary_key=True),
        sa.Column("day", sa.Text, primary_key=True),
        sa.Column("kind", sa.Text, primary_key=True),
        sa.Column("count", sa.BigInteger, nullable=False),
    )
    op.create_index("usage_day_day", "usage_day", ["day"])
    op.create_table(
        "usage_citing",
        sa.Column("ibi", sa.Text, primary_key=True),
        sa.Column("citing", sa.Text, primary_key=True),
        sa.Column("count", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("usage_citing")
    op.drop_index("usage_day_day", "usage_day")
    op.drop_table("usage_day")
    op.drop_index("target_check_result_ibi", "target_check_result")
    op.drop_table("target_check_result")
    op.drop_table("target_check")
