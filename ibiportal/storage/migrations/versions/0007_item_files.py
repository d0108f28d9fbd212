"""The files of the own Archive's items, kept in the database in chunks, so that every node
serves every file and none lives on one node's disk.

Revision ID: 0007
Revises: 0006
"""
import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "item_file",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("ibi", sa.Text, nullable=False),
        sa.Column("path", sa.Text, nullable=False),
        sa.Column("content_type", sa.Text, nullable=False),
        sa.Column("size", sa.BigInteger, nullable=False),
        sa.Column("sha256", sa.Text, nullable=False),
        sa.Column("chunk_bytes", sa.Integer, nullable=False),
        sa.Column("uploaded_at", sa.Text, nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_index("item_file_ibi_path", "item_file", ["ibi", "path"], unique=True)
    op.create_table(
        "item_file_chunk",
        sa.Column("file_id", sa.Integer, primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("data", sa.LargeBinary, nullable=False),
    )
