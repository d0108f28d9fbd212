"""Traces carry the IBI they resolved (``trace.ibi``), so that the trace history can be filtered
by IBI without reading their bodies (traces stored before keep NULL and are found by their
persistent URL); and ``trace_run`` holds the traces started from the Trace page, by the
fingerprint of who asked what, so that a repeated identical request joins the trace already
running instead of starting another (ibiportal.storage.traces.TraceRuns).

Revision ID: 0011
Revises: 0010
"""
import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("trace", sa.Column("ibi", sa.Text))
    op.create_index("trace_ibi", "trace", ["ibi"])
    op.create_table(
        "trace_run",
        sa.Column("fingerprint", sa.Text, primary_key=True),
        sa.Column("trace_id", sa.Text, nullable=False),
        sa.Column("started_at", sa.Text, nullable=False),
        sa.Column("finished_at", sa.Text),
    )


def downgrade() -> None:
    op.drop_table("trace_run")
    op.drop_index("trace_ibi", "trace")
    with op.batch_alter_table("trace") as batch:
        batch.drop_column("ibi")
