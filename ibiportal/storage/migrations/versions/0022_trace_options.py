"""Traces keep how they were asked (``trace.options``: which Archives, the faulty demo ones or
not, the client's IP and Accept-Language), so that the trace history tells two traces of one
URL apart without reading their bodies; traces stored before keep NULL.

Revision ID: 0022
Revises: 0021
"""
import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("trace", sa.Column("options", sa.Text))


def downgrade() -> None:
    with op.batch_alter_table("trace") as batch:
        batch.drop_column("options")
