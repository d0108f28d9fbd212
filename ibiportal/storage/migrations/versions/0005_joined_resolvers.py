"""The outside resolvers the portal's own Archive joined or left (file 003 §7.2): the last
exchange with each, without the registration key.

Revision ID: 0005
Revises: 0004
"""
import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "joined_resolver",
        sa.Column("service_url", sa.Text, primary_key=True),
        sa.Column("action", sa.Text, nullable=False),
        sa.Column("outcome", sa.Text, nullable=False),
        sa.Column("status", sa.Text),
        sa.Column("reason", sa.Text),
        sa.Column("archive_address", sa.Text, nullable=False),
        sa.Column("at", sa.Text, nullable=False),
    )
