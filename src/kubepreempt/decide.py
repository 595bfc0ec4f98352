"""One scheduling decision for one pod: schedule it, or preempt for it, or explain why not.

This is the library entry point behind ``kubepreempt schedule``::

    from kubepreempt import load_cluster, schedule
    cluster = load_cluster(["cluster.yaml"])
    decision = schedule(cluster, "default/web-1")
    print(decision.result, decision.node, decision.victims)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kubepreempt.api.errors import InputError
from kubepreempt.api.names import did_you_mean, object_key
from kubepreempt.api.objects import Node, Pod
from kubepreempt.api.podgroup import PodGroup
from kubepreempt.cluster import Cluster
from kubepreempt.loader import POD_CREATORS, build_with_warnings, print_warnings
from kubepreempt.manifests import load_documents
from kubepreempt.release import DEFAULT, Modelled
from kubepreempt.release import modelled as modelled_release
from kubepreempt.scheduler.config import SchedulerConfig
from kubepreempt.scheduler.cycle import (
    IGNORED,
    PREEMPT,
    SCHEDULED,
    SCHEDULING_GATED,
    SKIPPED,
    UNSCHEDULABLE,
    CycleResult,
    schedule_one,
)
from kubepreempt.scheduler.framework import Status
from kubepreempt.scheduler.preemption import Evaluator, PreemptionResult
from kubepreempt.scheduler.preemption.victim_units import VictimGroups
from kubepreempt.scheduler.scheduler import Scheduler
from kubepreempt.scheduler.statuses import NodeStatuses

__all__ = ["IGNORED", "PREEMPT", "SCHEDULED", "SCHEDULING_GATED", "SKIPPED", "UNSCHEDULABLE",
           "Decision", "Modelled", "decision_from", "load_cluster", "resolve_pod",
           "resolve_release", "schedule"]


@dataclass(slots=True)
class _ScoreParts:
    """What ``Decision.scores`` is built from, kept as arrays until someone reads it."""

    nodes: list[Node]  # the cluster's nodes at decision time (index -> node)
    feasible: np.ndarray  # scored node indices
    parts: dict[str, np.ndarray]  # plugin -> weighted scores, aligned with ``feasible``

    def per_node(self) -> dict[str, dict[str, int]]:
        nodes = self.nodes
        names = [nodes[i].name for i in self.feasible.tolist()]
        out: dict[str, dict[str, int]] = {name: {} for name in names}
        for plugin, arr in self.parts.items():
            for name, value in zip(names, arr.tolist(), strict=True):
                out[name][plugin] = value
        return out


class StatusesByName(Mapping[str, Status]):
    """Node name -> status of one cycle, as a read-only mapping built on first read.

    A failed cycle on a large cluster has a status for nearly every node; most callers
    (``schedule -f`` placing thousands of pods) never look at them, and the dictionary
    would cost more than the cycle. Holds a copy of the statuses and of the node list.
    """

    __slots__ = ("_source", "_nodes", "_built")

    def __init__(self, statuses: NodeStatuses, nodes: list[Node]) -> None:
        self._source: NodeStatuses | None = statuses.copy()
        self._nodes: list[Node] | None = list(nodes)
        self._built: dict[str, Status] | None = None

    def _dict(self) -> dict[str, Status]:
        if self._built is None:
            assert self._source is not None and self._nodes is not None
            self._built = self._source.named(self._nodes)
            self._source = self._nodes = None
        return self._built

    def __getitem__(self, name: str) -> Status:
        return self._dict()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._dict())

    def __len__(self) -> int:
        return len(self._dict())

    def __repr__(self) -> str:
        return repr(self._dict())


def _by_name(statuses: Mapping[int, Status], nodes: list[Node]) -> Mapping[str, Status]:
    """Node index -> status as node name -> status (lazily for :class:`NodeStatuses`)."""
    if isinstance(statuses, NodeStatuses):
        return StatusesByName(statuses, nodes)
    return {nodes[i].name: s for i, s in statuses.items()}


@dataclass(slots=True, eq=False)
class Decision:
    """The outcome for one pod, with everything ``--explain`` shows.

    ``scores`` (node -> plugin -> weighted score, for the feasible nodes when more than
    one was scored) is built on first read: most callers only want the node, and the
    dictionaries cost more than the scoring on large clusters. Plugins whose score is the
    same for every node for this pod (upstream skips them) have no entry.
    """

    pod: str
    result: str
    node: str | None
    victims: list[str] = field(default_factory=list)
    message: str = ""
    pdb_violations: int = 0
    cleared_nominations: list[str] = field(default_factory=list)
    statuses: Mapping[str, Status] = field(default_factory=dict)
    _score_parts: _ScoreParts | None = field(default=None, repr=False)
    preemption: PreemptionResult | None = None
    num_nodes: int = 0
    preemption_statuses: Mapping[str, Status] = field(default_factory=dict)
    _scores: dict[str, dict[str, int]] | None = field(default=None, repr=False)
    profile: str | None = None  # schedulerName of the deciding profile (None: ignored)
    modelled: Modelled = DEFAULT  # the Kubernetes release and gates it was decided with

    @property
    def scores(self) -> dict[str, dict[str, int]]:
        """Node -> plugin -> weighted score (computed once, on first read)."""
        if self._scores is None:
            parts = self._score_parts
            self._scores = {} if parts is None else parts.per_node()
            self._score_parts = None
        return self._scores

    @scores.setter
    def scores(self, value: dict[str, dict[str, int]]) -> None:
        self._scores, self._score_parts = value, None

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Decision)
        return all(getattr(self, f) == getattr(other, f) for f in _EQ_FIELDS) \
            and self.scores == other.scores

    __hash__ = None  # type: ignore[assignment]  # mutable, as the generated dataclass eq

    def to_json(self, explain: bool = False) -> dict[str, Any]:
        """The CLI's JSON object (DESIGN.md section 3)."""
        out: dict[str, Any] = {"pod": self.pod, "result": self.result, "node": self.node,
                               "victims": sorted(self.victims), "profile": self.profile}
        # The same keys for every result, so scripts need no existence checks.
        out["pdbViolations"] = self.pdb_violations
        out["clearedNominations"] = sorted(self.cleared_nominations)
        out["message"] = self.message or ""
        if explain:
            out["nodes"] = {n: {"code": s.code.upstream, "plugin": s.plugin,
                                "reasons": list(s.reasons)} for n, s in self.statuses.items()}
            if self.scores:
                out["scores"] = self.scores
            if self.preemption is not None and self.preemption.candidates:
                out["candidates"] = [
                    {"node": c.node, "victims": [p.key for p in c.victims],
                     "pdbViolations": c.pdb_violations,
                     "highestPriority": c.highest_priority,
                     "prioritySum": sum(p.priority for p in c.victims),
                     "count": len(c.victims)}
                    for c in self.preemption.candidates]
                out["decidedBy"] = self.preemption.decided_by
            if self.preemption_statuses:
                out["notCandidates"] = {n: list(s.reasons)
                                        for n, s in self.preemption_statuses.items()}
        return out


_EQ_FIELDS = ("pod", "result", "node", "victims", "message", "pdb_violations",
              "cleared_nominations", "statuses", "preemption", "num_nodes",
              "preemption_statuses", "profile")


def load_cluster(paths: Iterable[str], warn: bool = True) -> Cluster:
    """Load manifests (files, directories, ``-``) into a cluster snapshot; ``warn``
    prints the loading warnings on stderr."""
    cluster, warnings = build_with_warnings(load_documents(paths))
    if warn:
        print_warnings(warnings)
    return cluster


def resolve_pod(cluster: Cluster, pod: str | Pod) -> Pod:
    """The pending pod named ``ns/name`` (or ``name`` in ``default``); errors if bound.

    A missing pod's error names close matches, or says what to do when the name is a
    workload's rather than a pod's.
    """
    if isinstance(pod, Pod):
        return pod
    key = object_key(pod, None)
    found = cluster.find_pod(key)
    if found is None:
        other = cluster.other_objects.get(key)
        if other is not None:
            kind, source = other
            hint = ("; to place the pods it creates, give its manifest with `schedule -f "
                    "FILE`" if kind in POD_CREATORS else "")
            raise InputError(f"--pod {key}: this is a {kind}, not a pod{hint}", source, kind,
                             key)
        hint = did_you_mean(key, [*cluster.pods, *cluster.pending])
        raise InputError(f"--pod {key}: no such pod in the input{hint}")
    if found.bound:
        raise InputError(f"--pod {key}: already bound to node {found.node_name}; only pending "
                         "pods are scheduled", found.source, "Pod", key)
    return found


def schedule(cluster: Cluster, pod: str | Pod, *, preemption: bool = True,
             sample: bool = False, seed: int | None = None, now: float | None = None,
             scheduler: Scheduler | None = None, config: SchedulerConfig | None = None,
             release: Modelled | str | None = None,
             pod_groups: Mapping[str, PodGroup] | None = None) -> Decision:
    """Decide where ``pod`` goes, as kube-scheduler would (the cluster is not changed).

    One scheduling cycle (:func:`kubepreempt.scheduler.cycle.schedule_one`) with every
    node's status, the score table and every preemption candidate materialised.
    ``config`` (:func:`kubepreempt.scheduler.config.load_scheduler_config`) replaces the
    cluster's own scheduler configuration (default: upstream's default profile).
    ``release`` is the Kubernetes release decided as (a :class:`Modelled`, or a version
    such as ``"1.36"``; default 1.37): plain pods are decided the same by every modelled
    release, and ``Decision.modelled`` records which one was asked for. ``pod_groups``
    (the input's PodGroups by ``namespace/name``): where the release weighs victims by
    their PodGroup and the workload API is on (1.37, GenericWorkload), DefaultPreemption
    evicts ``disruptionMode: all`` groups whole (``Modelled.victim_groups``).
    """
    chosen = resolve_release(release)
    target = resolve_pod(cluster, pod)
    sched = scheduler or Scheduler(cluster, config=config)
    groups = VictimGroups(pod_groups or {}) if chosen.victim_groups else None
    evaluator = Evaluator(sched, sample=sample, seed=seed, now=now, materialize=True,
                          victim_groups=groups)
    cycle = schedule_one(sched, target, preemption=preemption, explain=True, now=now,
                         evaluator=evaluator)
    out = decision_from(cycle, cluster)
    out.modelled = chosen
    return out


def resolve_release(release: Modelled | str | None) -> Modelled:
    """A library caller's ``release=`` argument as a :class:`Modelled` (default 1.37)."""
    if release is None:
        return DEFAULT
    if isinstance(release, str):
        return modelled_release(release, warn=False)
    return release


def decision_from(cycle: CycleResult, cluster: Cluster) -> Decision:
    """The library's :class:`Decision` for one cycle's result."""
    nodes = cluster.nodes
    statuses = _by_name(cycle.statuses, nodes)
    out = Decision(cycle.pod.key, cycle.result, cycle.node_name, message=cycle.message,
                   statuses=statuses, num_nodes=cycle.num_nodes, profile=cycle.profile)
    if cycle.scores:
        out._score_parts = _ScoreParts(list(nodes), cycle.feasible, cycle.scores)
    pre = cycle.preemption
    if pre is not None:
        out.preemption = pre
        out.preemption_statuses = _by_name(pre.statuses, nodes)
        if cycle.result == PREEMPT:
            out.victims = [p.key for p in pre.victims]
            out.pdb_violations = pre.pdb_violations
            out.cleared_nominations = [p.key for p in pre.cleared_nominations]
    return out
