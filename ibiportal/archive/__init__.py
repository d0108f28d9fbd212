"""The Archive side of the protocol (file 003 §9): the Archive service over an item store."""
