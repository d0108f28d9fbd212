"""Administrator pages: registered Archives and the conformance check."""
