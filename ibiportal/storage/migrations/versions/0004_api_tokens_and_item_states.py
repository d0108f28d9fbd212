"""API tokens, and items that change after minting: an own item keeps when it last changed and
when it was deleted (its tombstone, Algorithm 2 lines 11-15), and the own Archive may hold
copies of other Archives' items (state Copy, Table 9.3).

Revision ID: 0004
Revises: 0003
"""
import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "api_token",
        sa.Column("name", sa.Text, primary_key=True),
        sa.Column("token_hash", sa.Text, nullable=False, unique=True),
        sa.Column("created_at", sa.Text, nullable=False),
        sa.Column("last_used_at", sa.Text),
    )
    op.add_column("minted_item", sa.Column("updated_at", sa.Text))
    op.add_column("minted_item", sa.Column("deleted_at", sa.Text))
    op.create_table(
        "item_copy",
        sa.Column("ibi", sa.Text, primary_key=True),
        sa.Column("target_url", sa.Text, nullable=False),
        sa.Column("created_at", sa.Text, nullable=False),
        sa.Column("updated_at", sa.Text, nullable=False),
    )
