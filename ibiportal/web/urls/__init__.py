"""Pages for persistent URLs: reading one and composing one."""
