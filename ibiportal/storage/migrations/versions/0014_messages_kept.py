"""An Archive history's detail and an outside resolver's reason kept as messages too
(``archive_event.detail_message``, ``joined_resolver.reason_message``: template and values as
JSON, :func:`ibiportal.i18n.to_record`), so that the pages show them in each reader's language;
rows recorded before have none, and are shown in English as written (marked so).

Revision ID: 0014
Revises: 0013
"""
import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("archive_event") as batch:
        batch.add_column(sa.Column("detail_message", sa.Text))
    with op.batch_alter_table("joined_resolver") as batch:
        batch.add_column(sa.Column("reason_message", sa.Text))


def downgrade() -> None:
    with op.batch_alter_table("joined_resolver") as batch:
        batch.drop_column("reason_message")
    with op.batch_alter_table("archive_event") as batch:
        batch.drop_column("detail_message")
