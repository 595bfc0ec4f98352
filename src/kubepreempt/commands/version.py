"""``kubepreempt version``."""

from __future__ import annotations

import typer

from kubepreempt import __version__


def register(app: typer.Typer) -> None:
    """Add the ``version`` command."""

    @app.command()
    def version() -> None:
        """Print the kubepreempt version."""
        print(__version__)
