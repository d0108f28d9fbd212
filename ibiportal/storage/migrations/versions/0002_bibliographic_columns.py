"""Minted items carry what a reference needs (``minted.Bibliographic``): the kind of item, its
publisher and place, extent, a thesis's degree and a report's number.

The code between the last release and migrations added these columns itself to databases that
lacked them, so a database may already have some or all of them: only the missing ones are added.

Revision ID: 0002
Revises: 0001
"""
import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

COLUMNS = ("item_type", "publisher", "place", "extent", "degree", "report_number")


def upgrade() -> None:
    present = {column["name"] for column in sa.inspect(op.get_bind()).get_columns("minted_item")}
    for name in COLUMNS:
        if name not in present:
            op.add_column("minted_item", sa.Column(name, sa.Text))
