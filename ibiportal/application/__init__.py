"""The portal's use cases, without Flask."""
