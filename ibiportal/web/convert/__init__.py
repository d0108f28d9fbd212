"""The Convert page: one identifier with its anatomy, many at once, the prefix table."""
