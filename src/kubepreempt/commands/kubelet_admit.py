"""``kubepreempt kubelet-admit``: would the kubelet admit a pod, evict for it, or reject it?"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from kubepreempt.api.quantity import format_amount
from kubepreempt.cli_common import (
    DATA_OUTPUTS,
    TABLE,
    emit,
    loading,
    output_option,
)
from kubepreempt.cli_common import console as new_console
from kubepreempt.cli_common import table as new_table
from kubepreempt.kubelet.admission import AdmissionResult, admit
from kubepreempt.kubelet.metrics import KIND as METRICS_KIND
from kubepreempt.live.options import FilesArg, live_input, load_input, qualify
from kubepreempt.loader import SCHEDULER_KINDS, build_with_warnings, print_warnings
from kubepreempt.release_options import kube_release, modelled_json

_COLOUR = {"admit": "green", "evict": "yellow", "reject": "red"}


def render(res: AdmissionResult, console: Console | None = None) -> None:
    """Print an admission decision for people: failures, shortfall, each QoS step."""
    console = console or new_console()
    colour = _COLOUR[res.result]
    console.print(f"pod [bold]{res.pod}[/] on node [bold]{res.node}[/]: "
                  f"[bold {colour}]{res.result}[/]"
                  + (" (critical pod)" if res.critical else " (not a critical pod)"))
    if res.failures:
        table = new_table("reason", "requested", "used", "capacity", "shortfall",
                          title="admission failures")
        for f in res.failures:
            if f.insufficient:
                amounts = (f.requested, f.used, f.capacity, f.amount)
                table.add_row(f.reason, *(format_amount(f.resource, a) for a in amounts))
            else:
                table.add_row(f"{f.reason}: {f.description}", "", "", "", "")
        console.print(table)
    if res.shortfall:
        console.print("shortfall to free: " + ", ".join(str(r) for r in res.shortfall))
    if res.steps:
        steps = new_table("QoS step", "candidates", "others gone", "needed",
                          "chosen", keys=(0, 4), title="victim selection, by QoS class")
        for step in res.steps:
            steps.add_row(step.qos, ", ".join(step.candidates) or "-",
                          str(len(step.assumed_gone)),
                          ", ".join(str(r) for r in step.needed) or "nothing",
                          "\n".join(step.chosen) or "-")
        console.print(steps)
    if res.victims:
        console.print("victims (kill order): " + ", ".join(res.victim_keys))
    if res.reason:
        console.print(f"reason: {res.reason}" + (f" — {res.message}" if res.message else ""))


def register(app: typer.Typer) -> None:
    """Add the ``kubelet-admit`` command."""

    @app.command("kubelet-admit")
    @live_input(SCHEDULER_KINDS)
    @kube_release
    def kubelet_admit(
        pod: Annotated[str, typer.Option("--pod", metavar="[NAMESPACE/]NAME",
                                         help="The pod to admit; a bare NAME is in -n.")],
        node: Annotated[str, typer.Option("--node", help="The node whose kubelet admits it")],
        files: FilesArg = None,
        output: Annotated[str, output_option()] = TABLE,
    ) -> None:
        """Kubelet admission: admit, evict pods for a critical pod, or reject."""
        with loading("reading the manifests", output):
            docs = load_input(files)
        cluster, warnings = build_with_warnings(docs, extra_kinds=(METRICS_KIND,))
        print_warnings(warnings)
        key = qualify(pod)
        res = admit(cluster, key, node)
        if output in DATA_OUTPUTS:
            emit({**res.to_json(), "modelled": modelled_json()}, output)
        else:
            render(res)
