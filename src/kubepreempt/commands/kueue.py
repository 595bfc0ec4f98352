"""``kubepreempt kueue``: what Kueue (0.20, or v0.7 on request) does with one workload."""

from __future__ import annotations

from typing import Annotated, Any

import typer
import yaml

from kubepreempt.api.errors import InputError
from kubepreempt.api.objects import parse_time
from kubepreempt.api.quantity import format_amount
from kubepreempt.cli import print_json
from kubepreempt.cli_common import (
    TABLE,
    loading,
    output_option,
)
from kubepreempt.cli_common import console as new_console
from kubepreempt.cli_common import table as new_table
from kubepreempt.kueue.admission import FILE_KINDS, KINDS, Decision, decide, load_inputs
from kubepreempt.kueue.objects import GROUP
from kubepreempt.kueue.semantics import CURRENT, semantics_for
from kubepreempt.live.options import FilesArg, live_input, load_input, qualify
from kubepreempt.release_options import kube_release, modelled_json


def _amount(res: str, v: int | None) -> str:
    return "-" if v is None else format_amount(res, v)


def _render(d: Decision, explain: bool) -> None:
    console = new_console()
    colour = {"admit": "green", "preempt": "yellow", "pending": "red"}[d.result]
    console.print(f"[bold]{d.workload}[/] -> [{colour}]{d.result}[/] in ClusterQueue "
                  f"{d.cluster_queue or '-'}" + (" (borrowing)" if d.borrowing else ""))
    for ps, flavors in d.flavors.items():
        console.print(f"  podSet {ps}: " + ", ".join(f"{r}={f}" for r, f in flavors.items()))
    if d.message:
        console.print(f"  {d.message}")
    if d.targets:
        table = new_table("victim", "ClusterQueue", "priority", "reason", keys=(0, 1))
        for t in sorted(d.targets, key=lambda t: t.info.key):
            table.add_row(t.info.key, t.info.cluster_queue, str(t.info.obj.priority), t.reason)
        console.print(table)
    if not explain or not d.explain:
        return
    after = {(r["clusterQueue"], r["flavor"], r["resource"]): r["usage"]
             for r in d.explain.get("quotasAfter", [])}
    table = new_table("ClusterQueue", "flavor", "resource", "nominal", "borrowing limit",
                      "usage", "usage after", keys=(0, 1, 2), title="quotas")
    for r in d.explain["quotas"]:
        k = (r["clusterQueue"], r["flavor"], r["resource"])
        table.add_row(r["clusterQueue"], r["flavor"], r["resource"],
                      _amount(r["resource"], r["nominal"]),
                      _amount(r["resource"], r["borrowingLimit"]),
                      _amount(r["resource"], r["usage"]), _amount(r["resource"], after.get(k)))
    console.print(table)
    shares = new_table("ClusterQueue", "share before", "share after", title="weighted shares")
    for name, before in d.explain["sharesBefore"].items():
        shares.add_row(name, str(before), str(d.explain.get("sharesAfter", {}).get(name, "-")))
    console.print(shares)
    for line in d.trace.lines:
        console.print(line, markup=False, highlight=False)
    for key, why in sorted(d.trace.skipped.items()):
        console.print(f"not a candidate: {key}: {why}", markup=False, highlight=False)


def register(app: typer.Typer) -> None:
    """Add the ``kueue`` command."""

    @app.command("kueue")
    @live_input(KINDS)
    @kube_release
    def kueue(
        workload: Annotated[str, typer.Option(
            "--workload", metavar="[NAMESPACE/]NAME",
            help="The Workload; a bare NAME is in -n.")],
        files: FilesArg = None,
        output: Annotated[str, output_option()] = TABLE,
        explain: Annotated[bool, typer.Option("--explain", help="Show quotas, shares, "
                                              "candidates.")] = False,
        now: Annotated[str | None, typer.Option("--now", metavar="RFC3339",
                                                help="Time used as "
                                                "'now' (conditions, ordering).")] = None,
        kueue_version: Annotated[str, typer.Option(
            "--kueue-version", help="Kueue release whose rules apply: 0.20 (alias current) "
            "or v0.7.")]
        = CURRENT,
    ) -> None:
        """Decide what Kueue does with a workload: admit, preempt or pending."""
        try:
            when = parse_time(now) if now else None
        except ValueError as exc:
            raise InputError(f"--now {now}: {exc}; expected an RFC 3339 time such as "
                             "2024-05-01T12:00:00Z") from None
        sem = semantics_for(kueue_version)
        with loading("reading the manifests", output):
            # On a cluster, Kueue's objects in the release's own version when served (a
            # 0.20 server converts v1beta2 objects to v1beta1 for --kueue-version v0.7).
            docs = load_input(files, versions={GROUP: f"{GROUP}/{sem.native_api_version}"})
        docs.warn_unused(FILE_KINDS if sem.hierarchical_cohorts
                         else tuple(k for k in FILE_KINDS if k != "Cohort"))
        key = qualify(workload, "--workload")  # a malformed name before any warning
        d = decide(load_inputs(docs, version=sem.version), key, when)
        out: dict[str, Any] = {**d.to_json(), "modelled": modelled_json(sem.version)}
        if explain:
            out["explain"] = {**d.explain, "trace": d.trace.lines,
                              "notCandidates": dict(sorted(d.trace.skipped.items()))}
        if output == "json":
            print_json(out)
        elif output == "yaml":
            out["victimStatus"] = d.victim_status()
            print(yaml.safe_dump(out, sort_keys=False), end="")
        else:
            _render(d, explain)
