"""The application layer: use cases as plain classes, built with their collaborators, taking
parsed values and returning facts (dataclasses). No Flask here: the web blueprints and the CLI
parse once, call a use case, and render what it returns."""
