"""Administrator login: the Archives pages and prefix-table changes need it."""
