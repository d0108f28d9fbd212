"""The Trace page: every message of a resolution, for support staff."""
