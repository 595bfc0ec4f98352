"""``kubepreempt evict-rank``: the kubelet's eviction order under memory or disk pressure."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from kubepreempt.api.quantity import format_amount
from kubepreempt.cli_common import DATA_OUTPUTS, TABLE, emit, loading, output_option
from kubepreempt.cli_common import console as new_console
from kubepreempt.cli_common import table as new_table
from kubepreempt.kubelet.eviction import RESOURCES, EvictionRanking, rank_node
from kubepreempt.kubelet.metrics import KIND as METRICS_KIND
from kubepreempt.kubelet.metrics import parse_pod_metrics
from kubepreempt.live.options import FilesArg, live_input, load_input
from kubepreempt.loader import SCHEDULER_KINDS, build_with_warnings, print_warnings
from kubepreempt.release_options import kube_release, modelled_json


def render(rank: EvictionRanking, console: Console | None = None) -> None:
    """Print the ranking as a table, first to be evicted first."""
    console = console or new_console()
    r = rank.resource
    table = new_table("#", "pod", "priority", "qos", "request", "usage", "usage - request",
                      "note", keys=(0, 1, 3), title=f"eviction order on {rank.node} under "
                      f"{r} pressure")
    for i, p in enumerate(rank.ranked, 1):
        usage = "no metrics" if p.usage is None else format_amount(r, p.usage)
        above = "" if p.above_request is None else (
            ("-" if p.above_request < 0 else "") + format_amount(r, abs(p.above_request)))
        note = "critical: never evicted" if p.critical else (
            "exceeds request" if p.exceeds else "")
        table.add_row(str(i), p.key, str(p.priority), p.qos, format_amount(r, p.request),
                      usage, above, note)
    console.print(table)
    console.print(f"next to evict: {rank.next or 'none'}")
    if any(p.above_request is not None and p.above_request < 0 for p in rank.ranked):
        console.print("usage - request: negative when a pod uses less than it requests "
                      "(the kubelet ranks pods above their request first).")


def register(app: typer.Typer) -> None:
    """Add the ``evict-rank`` command."""

    @app.command("evict-rank")
    @live_input((*SCHEDULER_KINDS, METRICS_KIND))
    @kube_release
    def evict_rank(
        node: Annotated[str, typer.Option("--node", help="The node under pressure")],
        files: FilesArg = None,
        resource: Annotated[str, typer.Option(
            "--resource", help="memory or ephemeral-storage")] = "memory",
        output: Annotated[str, output_option()] = TABLE,
    ) -> None:
        """Rank a node's pods for node-pressure eviction, as the kubelet does."""
        if resource not in RESOURCES:
            raise typer.BadParameter(f"must be one of {', '.join(RESOURCES)}",
                                     param_hint="--resource")
        with loading("reading the manifests", output):
            docs = load_input(files)
        cluster, warnings = build_with_warnings(docs, extra_kinds=(METRICS_KIND,))
        print_warnings(warnings)
        usage = parse_pod_metrics(docs.of(METRICS_KIND))
        rank = rank_node(cluster, node, resource, usage)
        if output in DATA_OUTPUTS:
            emit({**rank.to_json(), "modelled": modelled_json()}, output)
        else:
            render(rank)
