"""Every kept file's type made bare: ``type/subtype``, lower-cased, its parameters dropped
(``application.files.bare_media_type``). Uploads kept the whole Content-Type they declared, and a
browser may read a parameter as a second type (``application/pdf; a=",text/html"``): kept whole, a
file could be judged PDF and shown as HTML. A type's parameters carry nothing the portal needs.

Revision ID: 0015
Revises: 0014
"""
import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

_ITEM_FILE = sa.table("item_file", sa.column("id", sa.Integer), sa.column("content_type", sa.Text))


def upgrade() -> None:
    connection = op.get_bind()
    rows = connection.execute(sa.select(_ITEM_FILE.c.id, _ITEM_FILE.c.content_type)).all()
    for file_id, content_type in rows:
        bare = content_type.split(";", 1)[0].strip().lower()
        if bare != content_type:
            connection.execute(_ITEM_FILE.update().where(_ITEM_FILE.c.id == file_id).values(content_type=bare))


def downgrade() -> None:
    """Nothing to undo: a bare type is a valid type for the schema before."""
