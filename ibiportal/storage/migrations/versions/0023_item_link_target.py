"""Links found by their target: the own Archive reads the links TO an item (the original a
translation translates, Table 9.5 ``.translation(xx)`` by extension) on every resolution of an
own item; without an index that read walked every link of the collection, so a resolution cost
more as the collection grew (benchmarks/growth.py).

Revision ID: 0023
Revises: 0022
"""
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("item_link_target", "item_link", ["target"])


def downgrade() -> None:
    op.drop_index("item_link_target", table_name="item_link")
