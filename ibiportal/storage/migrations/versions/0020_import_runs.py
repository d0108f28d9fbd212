"""Imports started from the administrator's Import page, run in a thread of the process that
received them: each run's progress (records done of how many, the outcomes so far) and its report
are kept here, so that a reload, another worker or another node shows them
(ibiportal.storage.import_runs).

Revision ID: 0020
Revises: 0019
"""
import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "import_run",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("source_data", sa.LargeBinary),
        sa.Column("dry_run", sa.Integer, nullable=False),
        sa.Column("update_held", sa.Integer, nullable=False),
        sa.Column("started_by", sa.Text, nullable=False),
        sa.Column("started_at", sa.Text, nullable=False),
        sa.Column("alive_at", sa.Text, nullable=False),
        sa.Column("finished_at", sa.Text),
        sa.Column("total", sa.Integer),
        sa.Column("done", sa.Integer, nullable=False, server_default=sa.text("0")),
        sa.Column("counts", sa.Text, nullable=False),
        sa.Column("stopped", sa.Text),
        sa.Column("stopped_message", sa.Text),
    )
    op.create_index("import_run_started_at", "import_run", ["started_at"])
    op.create_table(
        "import_run_outcome",
        sa.Column("run_id", sa.Text, primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("outcome", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("import_run_outcome")
    op.drop_index("import_run_started_at", "import_run")
    op.drop_table("import_run")
