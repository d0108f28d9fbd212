"""Each IBI change stamped with the transaction that made it (``resolution_change.xact``), so that
changes need no lock to be read in full: writers no longer queue on the generation row until
their commit (ibiportal.storage.signal; benchmarks/minting.py), and readers find the rows of
transactions that committed after a later id by their transaction id. PostgreSQL fills it
(``pg_current_xact_id()``, as a bigint); SQLite leaves it NULL, its ids following commits.

Revision ID: 0013
Revises: 0012
"""
import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    postgres = op.get_bind().dialect.name == "postgresql"
    default = sa.text("(pg_current_xact_id()::text::bigint)") if postgres else None
    op.add_column("resolution_change", sa.Column("xact", sa.BigInteger, server_default=default))
    op.create_index("resolution_change_xact", "resolution_change", ["xact"])


def downgrade() -> None:
    op.drop_index("resolution_change_xact", "resolution_change")
    with op.batch_alter_table("resolution_change") as batch:
        batch.drop_column("xact")
