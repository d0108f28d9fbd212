"""Administrators' sessions kept on the server: the signed session cookie
alone stayed valid until it expired, so a cookie copied while logged in kept its administrator
rights after the logout. Now the cookie names a row of ``admin_session``, deleted at logout.

Revision ID: 0017
Revises: 0016
"""
import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "admin_session",
        sa.Column("id_hash", sa.Text, primary_key=True),
        sa.Column("username", sa.Text, nullable=False),
        sa.Column("created_at", sa.Text, nullable=False),
    )
    op.create_index("ix_admin_session_username", "admin_session", ["username"])


def downgrade() -> None:
    op.drop_index("ix_admin_session_username", "admin_session")
    op.drop_table("admin_session")
