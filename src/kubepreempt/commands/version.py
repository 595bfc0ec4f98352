"""``kubepreempt version``."""

from __future__ import annotations

from typing import Annotated

import typer

from kubepreempt import __version__
from kubepreempt.cli_common import DATA_OUTPUTS, TABLE, emit, output_option
from kubepreempt.release_options import current_modelled, kube_release


def register(app: typer.Typer) -> None:
    """Add the ``version`` command."""

    @app.command()
    @kube_release
    def version(output: Annotated[str, output_option()] = TABLE) -> None:
        """Print the kubepreempt version (-o json: also the releases it models, and the
        one --kube-version / --feature-gates choose)."""
        if output not in DATA_OUTPUTS:
            print(__version__)
            return
        from kubepreempt.kueue.semantics import CURRENT_RELEASE, SEMANTICS
        from kubepreempt.release import MODELLED

        emit({"kubepreempt": __version__,
              "modelled": current_modelled().to_json(kueue=CURRENT_RELEASE),
              "kubeVersions": list(MODELLED), "kueueVersions": sorted(SEMANTICS)}, output)
