"""Items moved to another Archive: a released item keeps its row, so its IBI
is never minted again, with when it was released and the successor Archive's service URL; the
own Archive answers it nothing from then on (Algorithm 2 lines 3-4).

Revision ID: 0018
Revises: 0017
"""
import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("minted_item") as batch:
        batch.add_column(sa.Column("released_at", sa.Text))
        batch.add_column(sa.Column("successor", sa.Text))


def downgrade() -> None:
    with op.batch_alter_table("minted_item") as batch:
        batch.drop_column("successor")
        batch.drop_column("released_at")
