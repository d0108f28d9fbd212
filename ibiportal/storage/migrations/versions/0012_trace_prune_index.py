"""An index of the traces by age with their sizes (``trace_prune``), so that dropping the oldest
beyond the count and byte bounds (ibiportal.storage.traces) reads the index alone. Without it the
size of every kept trace was read from its row, after its body (a trace of 10 Archives is about
11 KB, over several pages): 11 ms of CPU and 59 ms of wall time per save at the default 1,000
traces, the largest part of checking a reference list (``benchmarks/references.py``); with it
4 ms and 18 ms.

Revision ID: 0012
Revises: 0011
"""
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("trace_prune", "trace", ["created_at", "id", "size"])


def downgrade() -> None:
    op.drop_index("trace_prune", "trace")
