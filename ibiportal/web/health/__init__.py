"""The Archive health page: how each Archive has been answering, for support staff."""
