"""The protocol wire format of file 003 §6 (pair lists, request messages), pure Python."""
