"""Sweep files: a base scenario, its variants (a list and/or a grid of edits) and seeds.

See docs/SWEEPS.md for the format. Everything is checked on load; a mistake is one
:class:`InputError` naming the sweep file and the variant or key.
"""

from __future__ import annotations

import inspect
import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from kubepreempt.api.errors import InputError, Source
from kubepreempt.manifests import parse_text
from kubepreempt.sim import parse_duration, simulate
from kubepreempt.sim.autoscaler import AutoscalerOptions
from kubepreempt.sweep.edits import Edit, EditError, parse_edit

_TOP = {"kind", "scenario", "seeds", "simulation", "variants", "grid", "rank", "metrics",
        "sums"}
_VARIANT = {"name", "edits", "simulation"}
_ORDERS = ("min", "max")
# Options of simulate() a sweep sets: everything but the scenario, the run's plumbing and
# the seed (each run's own).
_NOT_OPTIONS = {"scenario", "progress", "keep_timeline", "seed"}
_DURATIONS = {"until", "latency", "controller_latency"}
_AUTOSCALER_TIMES = {"scan_interval", "provision_time", "scale_down_unneeded_time",
                     "scale_down_delay_after_add"}


@dataclass(frozen=True, slots=True)
class Variant:
    """One configuration: the base scenario with ``edits`` applied, simulated with ``options``.

    ``levels`` names the grid level per axis (empty for a listed variant).
    """

    name: str
    edits: tuple[Edit, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    levels: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class RankBy:
    """Rank variants by the mean of ``metric``: ``min`` (lower is better) or ``max``."""

    metric: str
    order: str = "min"


@dataclass(slots=True)
class SweepSpec:
    """A loaded sweep file."""

    path: str
    scenario: list[str]  # files or directories, resolved against the sweep file's folder
    seeds: list[int]
    variants: list[Variant]
    rank: RankBy | None = None
    metrics: list[str] = field(default_factory=list)  # glob patterns; empty: all
    sums: dict[str, list[str]] = field(default_factory=dict)  # new metric -> globs summed

    @property
    def runs(self) -> int:
        """Number of (variant, seed) simulations."""
        return len(self.variants) * len(self.seeds)


def _camel_to_snake(key: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "_" + m.group(1).lower(), key)


def simulation_options() -> dict[str, inspect.Parameter]:
    """The keyword options of :func:`kubepreempt.sim.simulate` a sweep may set."""
    params = inspect.signature(simulate).parameters
    return {k: p for k, p in params.items() if k not in _NOT_OPTIONS}


class _Reader:
    """Turns the parsed YAML into a :class:`SweepSpec`, raising located errors."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.source = Source(path)

    def fail(self, message: str, where: str | None = None) -> InputError:
        kind, _, name = (where or "").partition(" ")
        return InputError(message, self.source, kind or None, name or None)

    def options(self, raw: Any, where: str) -> dict[str, Any]:
        if raw is None:
            return {}
        if not isinstance(raw, Mapping):
            raise self.fail(f"simulation must be a mapping of simulate options, not {raw!r}",
                            where)
        known = simulation_options()
        out: dict[str, Any] = {}
        for key, value in raw.items():
            name = _camel_to_snake(str(key))
            param = known.get(name)
            if param is None:
                names = ", ".join(sorted(known))
                raise self.fail(f"simulation: unknown option {key!r} (known: {names})", where)
            if name == "autoscale":
                value = self.autoscale(value, where)
            elif name in _DURATIONS and value is not None:
                try:
                    value = parse_duration(value)
                except ValueError as exc:
                    raise self.fail(f"simulation {key}: {exc}", where) from None
            elif isinstance(param.default, bool) and not isinstance(value, bool):
                raise self.fail(f"simulation {key}: must be true or false, not {value!r}", where)
            out[name] = value
        return out

    def autoscale(self, raw: Any, where: str) -> AutoscalerOptions | None:
        """``autoscale: true`` (upstream defaults) or a mapping of the autoscaler's flags."""
        if raw is None or raw is False:
            return None
        if raw is True:
            return AutoscalerOptions()
        if not isinstance(raw, Mapping):
            raise self.fail(f"simulation autoscale: true, false or a mapping of options, "
                            f"not {raw!r}", where)
        known = {f.name: f for f in fields(AutoscalerOptions)}
        out: dict[str, Any] = {}
        for key, value in raw.items():
            name = _camel_to_snake(str(key))
            f = known.get(name)
            if f is None:
                raise self.fail(f"simulation autoscale: unknown option {key!r} (known: "
                                f"{', '.join(sorted(known))})", where)
            if name in _AUTOSCALER_TIMES:
                try:
                    value = parse_duration(value)
                except ValueError as exc:
                    raise self.fail(f"simulation autoscale {key}: {exc}", where) from None
            out[name] = value
        return AutoscalerOptions(**out)

    def edits(self, raw: Any, where: str) -> tuple[Edit, ...]:
        if raw is None:
            return ()
        if not isinstance(raw, list):
            raise self.fail(f"edits must be a list, not {raw!r}", where)
        out = []
        for i, item in enumerate(raw, 1):
            try:
                out.append(parse_edit(item))
            except EditError as exc:
                raise self.fail(f"edit {i}: {exc}", where) from None
        return tuple(out)

    def listed(self, raw: Any) -> list[Variant]:
        if raw is None:
            return []
        if not isinstance(raw, list):
            raise self.fail(f"variants must be a list, not {type(raw).__name__}")
        return [self.variant(item, f"variants[{i}]") for i, item in enumerate(raw)]

    def variant(self, raw: Any, label: str) -> Variant:
        if not isinstance(raw, Mapping):
            raise self.fail(f"{label}: must be a mapping with name and edits, not {raw!r}")
        name = raw.get("name")
        if name is None or isinstance(name, Mapping | list) or str(name) == "":
            raise self.fail(f"{label}: needs a name")
        where = f"variant {name}"
        unknown = sorted(set(raw) - _VARIANT)
        if unknown:
            raise self.fail(f"unknown key(s) {', '.join(map(str, unknown))} (known: "
                            f"{', '.join(sorted(_VARIANT))})", where)
        return Variant(str(name), self.edits(raw.get("edits"), where),
                       self.options(raw.get("simulation"), where))

    def axis(self, axis: str, raw: Any) -> list[Variant]:
        where = f"axis {axis}"
        if isinstance(raw, Mapping):  # short form: one edit, one level per value
            if set(raw) != {"edit", "values"}:
                raise self.fail("a grid axis is a list of levels or {edit, values}", where)
            values = raw["values"]
            if not isinstance(values, list) or not values:
                raise self.fail("values must be a non-empty list", where)
            if not isinstance(raw["edit"], Mapping):
                raise self.fail("edit must be one edit (a mapping)", where)
            levels = []
            for value in values:
                edit = self.edits([{**raw["edit"], "value": value}], where)
                levels.append(Variant(_label(value), edit))
            return levels
        if not isinstance(raw, list) or not raw:
            raise self.fail("a grid axis is a non-empty list of levels or {edit, values}",
                            where)
        return [self.variant(item, f"grid {axis}[{i}]") for i, item in enumerate(raw)]

    def grid(self, raw: Any) -> list[Variant]:
        if raw is None:
            return []
        if not isinstance(raw, Mapping) or not raw:
            raise self.fail("grid must be a mapping of axis name to levels")
        axes = [(str(name), self.axis(str(name), levels)) for name, levels in raw.items()]
        for axis, levels in axes:
            _unique([lv.name for lv in levels], lambda n, a=axis: self.fail(
                f"level {n!r} appears twice", f"axis {a}"))
        out = []
        for combo in itertools.product(*(levels for _, levels in axes)):
            names = {axis: lv.name for (axis, _), lv in zip(axes, combo, strict=True)}
            options: dict[str, Any] = {}
            for lv in combo:
                options.update(lv.options)
            out.append(Variant(", ".join(f"{a}={n}" for a, n in names.items()),
                               tuple(e for lv in combo for e in lv.edits), options, names))
        return out

    def seeds(self, raw: Any) -> list[int]:
        if isinstance(raw, int) and not isinstance(raw, bool):
            if raw < 1:
                raise self.fail(f"seeds must be at least 1, not {raw}")
            return list(range(raw))
        if isinstance(raw, list) and raw and all(
                isinstance(s, int) and not isinstance(s, bool) for s in raw):
            _unique(raw, lambda s: self.fail(f"seeds: {s} appears twice"))
            return list(raw)
        raise self.fail(f"seeds must be a count (seeds 0..N-1) or a list of integers, "
                        f"not {raw!r}")

    def rank(self, raw: Any) -> RankBy | None:
        if raw is None:
            return None
        if isinstance(raw, str):
            raw = {"metric": raw}
        if not isinstance(raw, Mapping) or not isinstance(raw.get("metric"), str) \
                or set(raw) - {"metric", "order"}:
            raise self.fail("rank must be {metric: NAME, order: min|max}")
        order = raw.get("order", "min")
        if order not in _ORDERS:
            raise self.fail(f"rank order must be min or max, not {order!r}")
        return RankBy(raw["metric"], order)

    def sums(self, raw: Any) -> dict[str, list[str]]:
        if raw is None:
            return {}
        if not isinstance(raw, Mapping):
            raise self.fail("sums must map a new metric name to the metric glob(s) it adds up")
        out = {}
        for name, patterns in raw.items():
            patterns = [patterns] if isinstance(patterns, str) else patterns
            if not isinstance(patterns, list) or not patterns or not all(
                    isinstance(p, str) for p in patterns):
                raise self.fail(f"sums {name}: needs a metric glob or a list of them")
            out[str(name)] = list(patterns)
        return out

    def scenario(self, raw: Any) -> list[str]:
        paths = raw if isinstance(raw, list) else [raw]
        if raw is None or not paths or not all(isinstance(p, str) and p for p in paths):
            raise self.fail("scenario must name the base scenario file(s)")
        base = Path(self.path).parent
        return [str(base / p) for p in paths]


def _label(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return value
    return str(value) if not isinstance(value, Mapping | list) else repr(value)


def _unique(items: list, error) -> None:
    seen = set()
    for item in items:
        if item in seen:
            raise error(item)
        seen.add(item)


def parse_sweep(doc: Any, path: str) -> SweepSpec:
    """A :class:`SweepSpec` from an already parsed sweep document."""
    r = _Reader(path)
    if not isinstance(doc, Mapping):
        raise r.fail("a sweep file is one mapping (scenario, seeds, variants/grid, ...)")
    unknown = sorted(set(doc) - _TOP)
    if unknown:
        raise r.fail(f"unknown key(s) {', '.join(map(str, unknown))} (known: "
                     f"{', '.join(sorted(_TOP))})")
    if doc.get("kind", "Sweep") != "Sweep":
        raise r.fail(f"kind must be Sweep, not {doc.get('kind')!r}")
    base = r.options(doc.get("simulation"), None)
    variants = r.listed(doc.get("variants")) + r.grid(doc.get("grid"))
    if not variants:
        variants = [Variant("base")]
    variants = [Variant(v.name, v.edits, {**base, **v.options}, v.levels) for v in variants]
    _unique([v.name for v in variants], lambda n: r.fail("the name appears twice",
                                                         f"variant {n}"))
    metrics = doc.get("metrics") or []
    if not isinstance(metrics, list) or not all(isinstance(m, str) for m in metrics):
        raise r.fail("metrics must be a list of metric names or patterns")
    return SweepSpec(path, r.scenario(doc.get("scenario")), r.seeds(doc.get("seeds", 1)),
                     variants, r.rank(doc.get("rank")), list(metrics), r.sums(doc.get("sums")))


def load_sweep(path: str) -> SweepSpec:
    """Load and check a sweep file."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", Source(path)) from None
    docs = parse_text(data, path)
    if len(docs) != 1:
        raise InputError("a sweep file holds one YAML document", Source(path))
    return parse_sweep(docs[0], path)
