"""Changes to what resolutions answer name the IBIs they touch, so that a mint or an edit drops
only those IBIs' cached outcomes instead of emptying every cache (``resolution_change``).

Revision ID: 0006
Revises: 0005
"""
import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "resolution_change",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("ibi", sa.Text, nullable=False),
        sqlite_autoincrement=True,
    )
