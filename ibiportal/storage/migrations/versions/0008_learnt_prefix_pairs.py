"""Prefix pairs learnt from Archives' answers keep the Archive that answered and the answer's pair
(``ibi {rep … ibip …}``, file 003 Table 9.4) beside their source sentence and date (STANDARD.md §7).

Revision ID: 0008
Revises: 0007
"""
import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("prefix_pair") as batch:
        batch.add_column(sa.Column("archive", sa.Text, nullable=True))
        batch.add_column(sa.Column("evidence", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("prefix_pair") as batch:
        batch.drop_column("evidence")
        batch.drop_column("archive")
