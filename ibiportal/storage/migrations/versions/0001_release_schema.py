"""The schema of the last release that made its own tables (``ibiportal/schema.sql`` at 5964d45).

That code ran ``CREATE TABLE IF NOT EXISTS`` on every first connection, so its databases have
these tables and no ``alembic_version``. This migration creates each table and index that is
missing and leaves those that exist as they are, with their rows: such a database upgrades in
place, and a new one gets the same schema.

Revision ID: 0001
Revises:
"""
import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    existing = set(sa.inspect(op.get_bind()).get_table_names())

    def create(name: str, *columns, **options) -> bool:
        """Create the table unless the database has it; whether it was created."""
        if name in existing:
            return False
        op.create_table(name, *columns, **options)
        return True

    create(
        "subsystem_clock",
        sa.Column("subsystem", sa.Text, primary_key=True),
        sa.Column("last_date", sa.Text, nullable=False),
        sa.Column("last_reading", sa.Text, nullable=False),
        sa.Column("clock_offset", sa.Text, nullable=False),
    )
    create(
        "minted_item",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("rep", sa.Text, nullable=False, unique=True),
        sa.Column("ibip", sa.Text, nullable=False, unique=True),
        sa.Column("date", sa.Text, nullable=False),
        sa.Column("utc", sa.Text, nullable=False),
        sa.Column("subsystem", sa.Text, nullable=False),
        sa.Column("title", sa.Text),
        sa.Column("target_url", sa.Text),
        sa.Column("creators", sa.Text),
        sa.Column("item_date", sa.Text),
        sa.Column("language", sa.Text),
        sa.Column("created_at", sa.Text, nullable=False),
        sqlite_autoincrement=True,
    )
    create(
        "item_link",
        sa.Column("ibi", sa.Text, primary_key=True),
        sa.Column("relation", sa.Text, primary_key=True),
        sa.Column("language", sa.Text, primary_key=True, server_default=sa.text("''")),
        sa.Column("target", sa.Text, nullable=False),
    )
    create(
        "prefix_pair",
        sa.Column("rep_prefix", sa.Text, primary_key=True),
        sa.Column("ibip_prefix", sa.Text, primary_key=True),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("added_at", sa.Text, nullable=False),
    )
    if create(
        "trace",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("created_at", sa.Text, nullable=False),
        sa.Column("persistent_url", sa.Text, nullable=False),
        sa.Column("outcome", sa.Text, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
    ):
        op.create_index("trace_created_at", "trace", ["created_at"])
    create(
        "archive",
        sa.Column("service_ibi", sa.Text, primary_key=True),
        sa.Column("key_hash", sa.Text, nullable=False),
        sa.Column("included", sa.Integer, nullable=False, server_default=sa.text("0")),
        sa.Column("address", sa.Text),
        sa.Column("ip", sa.Text),
        sa.Column("platform_version", sa.Text),
        sa.Column("admin_email", sa.Text),
        sa.Column("last_confirmation", sa.Text),
        sa.Column("registered_at", sa.Text, nullable=False),
        sa.Column("updated_at", sa.Text, nullable=False),
    )
    if create(
        "archive_event",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("service_ibi", sa.Text, nullable=False),
        sa.Column("at", sa.Text, nullable=False),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
        sqlite_autoincrement=True,
    ):
        op.create_index("archive_event_service_ibi", "archive_event", ["service_ibi", "id"])
    create(
        "admin_account",
        sa.Column("username", sa.Text, primary_key=True),
        sa.Column("password_hash", sa.Text, nullable=False),
        sa.Column("updated_at", sa.Text, nullable=False),
    )
    if create(
        "resolution_generation",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("value", sa.Integer, nullable=False),
        sa.CheckConstraint("id = 1"),
    ):
        op.execute("INSERT INTO resolution_generation (id, value) VALUES (1, 0)")
