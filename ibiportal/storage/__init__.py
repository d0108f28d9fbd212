"""The only package that speaks SQL (and to Redis): one module per concern.

``database`` (the connection and its transactions), ``schema`` (the tables), ``identifiers``
(minting state, minted items, prefix pairs), ``registry`` (registered Archives), ``traces``,
``accounts`` (administrators), ``signal`` (telling every worker and node that resolution
caches must empty) and ``migrations`` (Alembic: the only way the schema changes).
"""
