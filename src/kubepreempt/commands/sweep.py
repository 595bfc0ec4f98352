"""``kubepreempt sweep``: simulate every variant of a scenario over many seeds and compare."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from kubepreempt.cli_common import DATA_OUTPUTS, TABLE, emit, output_option
from kubepreempt.cli_common import console as new_console
from kubepreempt.cli_common import table as new_table
from kubepreempt.release_options import current_modelled, kube_release, modelled_json
from kubepreempt.sweep import (
    DaskBackend,
    PoolBackend,
    RankBy,
    SerialBackend,
    SweepResult,
    default_jobs,
    load_sweep,
    run_sweep,
)
from kubepreempt.sweep.display import cell, families, fmt, interval, labelled, unit
from kubepreempt.text_table import TextTable


def register(app: typer.Typer) -> None:
    """Add the ``sweep`` command."""

    @app.command("sweep")
    @kube_release
    def sweep_cmd(
        spec_file: Annotated[str, typer.Argument(
            metavar="SPEC.yaml", help="Sweep file: base scenario, variants, seeds.")],
        output: Annotated[str, output_option()] = TABLE,
        report: Annotated[str | None, typer.Option(
            "--report", help="Write a self-contained HTML comparison report.")] = None,
        cluster: Annotated[str | None, typer.Option(
            "--cluster", metavar="ADDRESS",
            help="Run on this Dask scheduler (e.g. tcp://10.0.0.5:8786).")] = None,
        jobs: Annotated[int | None, typer.Option(
            "-j", "--jobs", help="Local worker processes (default: all cores; 1: in this "
            "process).")] = None,
        results: Annotated[str | None, typer.Option(
            "--results", help="Results file to resume from and append to (default: "
            "SPEC.results.jsonl beside the sweep file).")] = None,
        fresh: Annotated[bool, typer.Option(
            "--fresh", help="Discard stored results and run everything again.")] = False,
        rank: Annotated[str | None, typer.Option(
            "--rank", metavar="METRIC", help="Rank variants on this metric (overrides the "
            "sweep file's rank).")] = None,
        order: Annotated[str | None, typer.Option(
            "--order", help="min (lower is better) or max.")] = None,
        metric: Annotated[list[str] | None, typer.Option(
            "--metric", help="Report only metrics matching this glob (repeatable; "
            "overrides the sweep file's metrics).")] = None,
        no_progress: Annotated[bool, typer.Option(
            "--no-progress", help="No progress bar on stderr.")] = False,
    ) -> None:
        """Run every (variant, seed) simulation of a sweep; mean and 95% CI per variant."""
        if order not in (None, "min", "max"):
            raise typer.BadParameter("must be min or max", param_hint="--order")
        current_modelled()  # an unknown gate fails before any run
        spec = load_sweep(spec_file)
        by = spec.rank
        if rank is not None or order is not None:
            metric_name = rank or (by.metric if by else None)
            if metric_name is None:
                raise typer.BadParameter("needs --rank METRIC (the sweep file names none)",
                                         param_hint="--order")
            same = by is not None and by.metric == metric_name
            by = RankBy(metric_name, order or (by.order if by and same else "min"))
        patterns = metric or spec.metrics
        if cluster is not None:
            backend: Any = DaskBackend(cluster)
        else:
            n = jobs if jobs is not None else default_jobs()
            backend = SerialBackend() if n == 1 else PoolBackend(n)
        progress = _Progress(enabled=not no_progress)
        try:
            result = run_sweep(spec, backend, results=results, fresh=fresh,
                               on_start=progress.start, on_result=progress.advance,
                               rank_by=by)
        except KeyboardInterrupt:
            progress.stop()
            Console(stderr=True).print(
                "interrupted: finished runs are stored; run the same command again to "
                "resume", highlight=False)
            raise
        finally:
            progress.stop()
            if isinstance(backend, DaskBackend):
                backend.close()
        ranked = result.ranking(by)  # checks the metric name before anything is written
        if report:
            from kubepreempt.sweep.report import write_report  # matplotlib only when asked

            write_report(result, report, patterns, by)
        if output in DATA_OUTPUTS:
            emit({**result.to_json(patterns, by), "modelled": modelled_json()}, output)
        else:
            render(result, patterns, by, ranked)
            if report:
                new_console().print(f"Report written to {report}")
        if result.failures:
            raise typer.Exit(1)


class _Progress:
    """Runs done / to do, elapsed time and ETA on stderr; failed runs as they happen."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.console = Console(stderr=True)
        self.bar: Progress | None = None
        self.task: TaskID | None = None
        self.failed = 0

    def start(self, todo: int, reused: int) -> None:
        if reused:
            self.console.print(f"{reused} runs already in the results file, {todo} to run",
                               highlight=False)
        if not self.enabled or not todo:
            return
        self.bar = Progress(TextColumn("sweep"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("runs, {task.fields[failed]} failed"),
                            TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                            console=self.console, transient=True)
        self.bar.start()
        self.task = self.bar.add_task("sweep", total=todo, failed=0)

    def advance(self, task: tuple[str, int], outcome: dict) -> None:
        if "error" in outcome:
            self.failed += 1
            target = self.bar.console if self.bar is not None else self.console
            target.print(f"run failed: variant {task[0]!r}, seed {task[1]}: "
                         f"{outcome['error']}", highlight=False, markup=False)
        if self.bar is not None and self.task is not None:
            self.bar.update(self.task, advance=1, failed=self.failed)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def _table(*columns: str, title: str = "") -> TextTable:
    """Variant names (the key) never cut; figures aligned right."""
    return new_table("variant", *columns, right=tuple(range(1, len(columns) + 1)),
                     title=title or None)


def render(result: SweepResult, patterns: list[str], by: RankBy | None,
           ranked: list | None) -> None:
    """Per metric family a table of variants (mean ± CI half-width), the ranking, failures.

    ``classes.<class>.<measure>`` metrics make one table per measure with a column per
    class, so variant names (rows) and class names (columns) both stay readable. Figures
    with a unit say it: in a table's title, or after a metric's name.
    """
    console = new_console()
    spec = result.spec
    summaries = result.summaries()
    pct = f"{result.confidence * 100:g}%"
    console.print(f"Mean ± {pct} confidence interval half-width over "
                  f"{len(spec.seeds)} seeds per variant", highlight=False)
    singles: list[str] = []
    for family, members in families(result.metric_names(patterns)).items():
        if len(members) == 1 and not members[0][0]:
            singles.append(members[0][1])
            continue
        group, _, measure = family.partition(".*.")
        in_unit = unit(members[0][1], spec.sums)
        table = _table(*(m for m, _ in members), title=f"{measure} by {group}"
                       + (f", in {in_unit}" if in_unit else ""))
        for v in spec.variants:
            table.add_row(v.name, *(cell(summaries[v.name].get(n)) for _, n in members))
        console.print(table)
    for start in range(0, len(singles), 4):
        names = singles[start:start + 4]
        table = _table(*(labelled(n, spec.sums) for n in names))
        for v in spec.variants:
            table.add_row(v.name, *(cell(summaries[v.name].get(n)) for n in names))
        console.print(table)
    if ranked is not None and by is not None:
        best = "lowest" if by.order == "min" else "highest"
        rt = new_table("rank", "variant", "mean", f"{pct} CI", "n", "overlaps best",
                       keys=(0, 1), right=(0, 2, 3, 4),
                       title=f"Ranking on {labelled(by.metric, spec.sums)} ({best} first)")
        for r in ranked:
            est = r.estimate
            rt.add_row(str(r.rank), r.variant, fmt(est.mean), interval(est), str(est.n),
                       "yes" if r.overlaps_best else "no")
        console.print(rt)
    for variant, seed, error in result.failures:
        console.print(f"[red]failed[/] variant {variant!r}, seed {seed}: {error}",
                      highlight=False)
    console.print(f"{spec.runs} runs ({len(spec.variants)} variants x {len(spec.seeds)} "
                  f"seeds): {_provenance(result)}, {len(result.failures)} failed; "
                  f"{result.elapsed:.1f} s.", highlight=False)


def _provenance(result: SweepResult) -> str:
    """Where the runs came from; a backend is named only when it ran something."""
    if not result.ran:
        return f"all {result.reused} from the results file {result.results_path}"
    ran = f"{result.ran} run now on {result.backend}"
    return ran + (f", {result.reused} from {result.results_path}" if result.reused else "")
