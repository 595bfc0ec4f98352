"""Plan a sweep (edit and check every variant), run what is not stored yet, summarise."""

from __future__ import annotations

import contextlib
import io
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kubepreempt.api.errors import InputError, Source
from kubepreempt.api.names import did_you_mean
from kubepreempt.manifests import Documents, load_documents
from kubepreempt.sim import build_scenario, simulate
from kubepreempt.sweep.backends import Backend, Task
from kubepreempt.sweep.edits import EditError, apply_edits
from kubepreempt.sweep.spec import RankBy, SweepSpec
from kubepreempt.sweep.stats import (
    CONFIDENCE,
    Estimate,
    Ranked,
    add_sums,
    flatten,
    rank,
    select,
    summarize_variant,
)
from kubepreempt.sweep.store import ResultStore, fingerprint
from kubepreempt.sweep.worker import Payload


def default_results_path(spec_path: str) -> str:
    """``sweep.yaml`` -> ``sweep.results.jsonl`` beside it."""
    p = Path(spec_path)
    return str(p.with_name(p.stem + ".results.jsonl"))


@dataclass(slots=True)
class Plan:
    """Every variant's edited scenario, options and fingerprint."""

    spec: SweepSpec
    payloads: dict[str, Payload]
    fingerprints: dict[str, str]


def plan(spec: SweepSpec) -> Plan:
    """Apply each variant's edits to the base scenario and check the result builds.

    Bad edits, scenarios or options are :class:`InputError` naming the sweep file and the
    variant, before anything runs.
    """
    try:
        base = load_documents(spec.scenario)
    except InputError as exc:  # name the sweep file that refers to the scenario
        raise InputError(f"scenario: {exc}", Source(spec.path)) from None
    payloads: dict[str, Payload] = {}
    fingerprints: dict[str, str] = {}
    for i, variant in enumerate(spec.variants):
        where = (Source(spec.path), "variant", variant.name)
        try:
            docs = apply_edits(base, variant.edits)
        except EditError as exc:
            raise InputError(str(exc), *where) from None
        try:
            # Show the scenario's warnings (skipped kinds) once, not once per variant.
            quiet = contextlib.redirect_stderr(io.StringIO()) if i else contextlib.nullcontext()
            with quiet:
                build_scenario(docs, spec.seeds[0])
        except InputError as exc:
            raise InputError(f"the edited scenario is bad input: {exc}", *where) from None
        _check_options(variant.options, where)
        payloads[variant.name] = (docs, dict(variant.options))
        fingerprints[variant.name] = fingerprint(docs, variant.options)
    return Plan(spec, payloads, fingerprints)


def check_rank_metric(p: Plan, metric: str) -> None:
    """:class:`InputError` naming the sweep file unless a run can report ``metric``.

    Checked before anything runs, against the sums of the sweep file and the metrics a
    zero-length run of each variant reports. Those runs have not met every
    PriorityClass, ClusterQueue or node group yet, so ``group.member.measure`` is known
    once another member reports ``group.*.measure``, a longer name once its first three
    parts start a known name (``kueue.clusterQueues.q.preemptedByReason.X``), and any
    name under a group still empty (``classes.`` before the first pod arrives).
    """
    known: list[str] = list(p.spec.sums)
    for docs, options in p.payloads.values():
        if _reportable(metric, known):
            return
        with contextlib.redirect_stderr(io.StringIO()):  # warned once already
            scenario = build_scenario(docs, p.spec.seeds[0])
        dry = simulate(scenario, keep_timeline=False, **{**options, "until": 0.0})
        known.extend(name for name in flatten(dry.metrics) if name not in known)
        known.extend(_empty_groups(dry.metrics))
    if not _reportable(metric, known):
        names = [k for k in known if not k.endswith(".")]
        raise InputError(f"rank: no run can report metric {metric!r}"
                         f"{did_you_mean(metric, names) or _some(names)}", Source(p.spec.path))


def _empty_groups(metrics: Mapping[str, Any], prefix: str = "") -> list[str]:
    """``group.`` for each empty mapping of ``metrics`` (its members come later)."""
    out = []
    for key, value in metrics.items():
        if isinstance(value, Mapping):
            out.extend(_empty_groups(value, f"{prefix}{key}.") if value
                       else [f"{prefix}{key}."])
    return out


def _reportable(metric: str, known: Sequence[str]) -> bool:
    if metric in known or any(k.endswith(".") and metric.startswith(k) for k in known):
        return True
    parts = metric.split(".")
    if len(parts) < 3:
        return False
    return any((k.split(".")[0], k.split(".")[-1]) == (parts[0], parts[-1]) or
               (len(parts) > 3 and k.startswith(".".join(parts[:3]) + "."))
               for k in known)


def _some(names: Sequence[str]) -> str:
    return f" (some known: {', '.join(names[:12])}, ...)"


def _check_options(options: Mapping[str, Any], where: tuple) -> None:
    """Let simulate() judge the options, on an empty scenario (it checks them first)."""
    try:
        simulate(build_scenario(Documents(), 0), keep_timeline=False, **options)
    except InputError as exc:
        raise InputError(f"simulation options: {exc}", *where) from None


@dataclass(slots=True)
class SweepResult:
    """The stored and new runs of a sweep and their per-variant statistics."""

    spec: SweepSpec
    results_path: str
    backend: str
    metrics: dict[str, dict[int, dict[str, float | None]]]  # variant -> seed -> metrics
    failures: list[tuple[str, int, str]]  # (variant, seed, error), in the spec's order
    reused: int = 0
    ran: int = 0
    stale: int = 0
    elapsed: float = 0.0
    confidence: float = CONFIDENCE
    _summaries: dict[str, dict[str, Estimate]] = field(default_factory=dict, init=False,
                                                       repr=False)

    def summaries(self) -> dict[str, dict[str, Estimate]]:
        """variant -> metric -> estimate over its seeds."""
        if not self._summaries:
            sums = self.spec.sums
            self._summaries = {
                v.name: summarize_variant({seed: add_sums(m, sums) for seed, m in
                                           self.metrics.get(v.name, {}).items()},
                                          self.confidence)
                for v in self.spec.variants}
        return self._summaries

    def metric_names(self, patterns: Sequence[str] = ()) -> list[str]:
        """Every metric some run reported (first seen first), filtered by glob ``patterns``
        and ordered by the first pattern each matches."""
        names: dict[str, None] = {}
        for per in self.summaries().values():
            names.update(dict.fromkeys(per))
        return select(names, patterns)

    def ranking(self, by: RankBy | None) -> list[Ranked] | None:
        """Variants ranked on ``by``; InputError if runs succeeded but none reported it."""
        if by is None:
            return None
        known_names = self.metric_names()
        if known_names and by.metric not in known_names:  # (no names: every run failed)
            known = ", ".join(known_names[:12])
            raise InputError(f"rank: no run reported metric {by.metric!r} (some known: "
                             f"{known}, ...)", Source(self.spec.path))
        summaries = self.summaries()
        return rank([(v.name, summaries[v.name].get(by.metric)) for v in self.spec.variants],
                    by.order)

    def to_json(self, patterns: Sequence[str] = (), by: RankBy | None = None
                ) -> dict[str, Any]:
        """The ``sweep -o json`` object (see docs/SWEEPS.md)."""
        names = self.metric_names(patterns)
        summaries = self.summaries()
        ranked = self.ranking(by)
        failed: dict[str, int] = {}
        for variant, _, _ in self.failures:
            failed[variant] = failed.get(variant, 0) + 1
        return {
            "spec": self.spec.path, "scenario": self.spec.scenario, "seeds": self.spec.seeds,
            "confidence": self.confidence, "results": self.results_path,
            "backend": self.backend,
            "runs": {"planned": self.spec.runs, "reused": self.reused, "ran": self.ran,
                     "succeeded": sum(len(s) for s in self.metrics.values()),
                     "failed": len(self.failures), "staleIgnored": self.stale},
            "elapsed": self.elapsed,
            "variants": [{"name": v.name, "levels": dict(v.levels) or None,
                          "edits": [e.to_json() for e in v.edits],
                          "runs": len(self.metrics.get(v.name, {})),
                          "failed": failed.get(v.name, 0),
                          "metrics": {m: summaries[v.name][m].to_json() for m in names
                                      if m in summaries[v.name]}}
                         for v in self.spec.variants],
            "ranking": None if ranked is None else {
                "metric": by.metric, "order": by.order,  # type: ignore[union-attr]
                "variants": [r.to_json() for r in ranked]},
            "failures": [{"variant": v, "seed": s, "error": e} for v, s, e in self.failures],
        }


OnStart = Callable[[int, int], None]  # (runs to do, runs reused)
OnResult = Callable[[Task, dict[str, Any]], None]


def run_sweep(spec: SweepSpec, backend: Backend, results: str | None = None,
              fresh: bool = False, on_start: OnStart | None = None,
              on_result: OnResult | None = None, order: Sequence[Task] | None = None,
              rank_by: RankBy | None = None) -> SweepResult:
    """Run every (variant, seed) not already in the results file; summarise all of them.

    ``results`` defaults to :func:`default_results_path`; ``fresh`` discards it first.
    ``order`` runs the missing tasks in that order (tests use it to shuffle); by default
    variant by variant, seed by seed. Each finished run is stored at once, so an
    interrupted sweep resumes where it stopped. ``rank_by``'s metric is checked
    (:func:`check_rank_metric`) before anything runs or is written.
    """
    started = time.perf_counter()
    p = plan(spec)
    if rank_by is not None:
        check_rank_metric(p, rank_by.metric)
    path = results or default_results_path(spec.path)
    store = ResultStore(path, fresh=fresh)
    try:
        stored, stale = store.load(p.fingerprints)
        tasks = list(order) if order is not None else [(v.name, s) for v in spec.variants
                                                        for s in spec.seeds]
        todo = [t for t in tasks if t not in stored]
        metrics: dict[str, dict[int, dict[str, float | None]]] = {}
        for (variant, seed), row in stored.items():
            metrics.setdefault(variant, {})[seed] = row["metrics"]
        failures: dict[Task, str] = {}
        check = getattr(backend, "check", None)
        if todo and check is not None:
            check()  # e.g. reach the Dask cluster before the progress bar starts
        if on_start is not None:
            on_start(len(todo), len(tasks) - len(todo))
        ran = 0
        stream = backend.results(p.payloads, todo) if todo else iter(())
        try:
            for (variant, seed), outcome in stream:
                ran += 1
                store.append({"variant": variant, "seed": seed,
                              "fingerprint": p.fingerprints[variant], **outcome})
                if "metrics" in outcome:
                    metrics.setdefault(variant, {})[seed] = outcome["metrics"]
                else:
                    failures[(variant, seed)] = outcome["error"]
                if on_result is not None:
                    on_result((variant, seed), outcome)
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()  # stop the backend's runs now (e.g. on Ctrl-C), not when collected
    finally:
        store.close()
    position = {(v.name, s): (i, j) for i, v in enumerate(spec.variants)
                for j, s in enumerate(spec.seeds)}
    failed = sorted(failures.items(), key=lambda kv: position[kv[0]])
    return SweepResult(spec, path, backend.describe(), metrics,
                       [(v, s, e) for (v, s), e in failed], reused=len(tasks) - len(todo),
                       ran=ran, stale=stale, elapsed=time.perf_counter() - started)
