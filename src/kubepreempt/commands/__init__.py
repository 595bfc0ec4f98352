"""CLI subcommands. Each module defines ``register(app)`` adding its command to the app.

``kubepreempt.cli`` discovers the modules here, so a new command is one new file.
"""
