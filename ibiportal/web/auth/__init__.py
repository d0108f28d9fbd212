"""Administrator login (issues 5 and 6): the Archives pages and prefix-table changes need it."""
