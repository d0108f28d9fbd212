"""Administrator pages: registered Archives and the conformance check (issue 5)."""
