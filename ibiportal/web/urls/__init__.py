"""Pages for persistent URLs (issue 3): reading one and composing one; the full design comes later."""
