"""One scheduling decision for one pod: schedule it, or preempt for it, or explain why not.

This is the library entry point behind ``kubepreempt schedule``::

    from kubepreempt import load_cluster, schedule
    cluster = load_cluster(["cluster.yaml"])
    decision = schedule(cluster, "default/web-1")
    print(decision.result, decision.node, decision.victims)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kubepreempt.api.errors import InputError
from kubepreempt.api.objects import Pod
from kubepreempt.cluster import Cluster, build_cluster
from kubepreempt.manifests import load_documents
from kubepreempt.scheduler.framework import Status
from kubepreempt.scheduler.preemption import PreemptionResult, Preemptor
from kubepreempt.scheduler.scheduler import Scheduler, fit_error_message

SCHEDULED = "scheduled"
PREEMPT = "preempt"
UNSCHEDULABLE = "unschedulable"


@dataclass(slots=True)
class Decision:
    """The outcome for one pod, with everything ``--explain`` shows."""

    pod: str
    result: str
    node: str | None
    victims: list[str] = field(default_factory=list)
    message: str = ""
    pdb_violations: int = 0
    cleared_nominations: list[str] = field(default_factory=list)
    statuses: dict[str, Status] = field(default_factory=dict)
    scores: dict[str, dict[str, int]] = field(default_factory=dict)
    preemption: PreemptionResult | None = None
    num_nodes: int = 0
    preemption_statuses: dict[str, Status] = field(default_factory=dict)

    def to_json(self, explain: bool = False) -> dict[str, Any]:
        """The CLI's JSON object (DESIGN.md section 3)."""
        out: dict[str, Any] = {"pod": self.pod, "result": self.result, "node": self.node,
                               "victims": sorted(self.victims)}
        if self.result == PREEMPT:
            out["pdbViolations"] = self.pdb_violations
            out["clearedNominations"] = sorted(self.cleared_nominations)
        if self.message:
            out["message"] = self.message
        if explain:
            out["nodes"] = {n: {"code": s.code.name, "plugin": s.plugin,
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


def load_cluster(paths: Iterable[str], warn: bool = True) -> Cluster:
    """Load manifests (files, directories, ``-``) into a cluster snapshot."""
    return build_cluster(load_documents(paths), warn=warn)


def resolve_pod(cluster: Cluster, pod: str | Pod) -> Pod:
    """The pending pod named ``ns/name`` (or ``name`` in ``default``); errors if bound."""
    if isinstance(pod, Pod):
        return pod
    key = pod if "/" in pod else f"default/{pod}"
    found = cluster.find_pod(key)
    if found is None:
        raise InputError(f"--pod {key}: no such pod in the input")
    if found.bound:
        raise InputError(f"--pod {key}: already bound to node {found.node_name}; only pending "
                         "pods are scheduled", found.source, "Pod", key)
    return found


def schedule(cluster: Cluster, pod: str | Pod, *, preemption: bool = True,
             sample: bool = False, seed: int | None = None, now: float | None = None,
             scheduler: Scheduler | None = None) -> Decision:
    """Decide where ``pod`` goes, as kube-scheduler would (the cluster is not changed)."""
    target = resolve_pod(cluster, pod)
    sched = scheduler or Scheduler(cluster)
    state, prefilter, filters = sched.new_state(target)
    names = [n.name for n in cluster.nodes]
    if prefilter is not None:
        outcome_statuses = dict.fromkeys(range(len(names)), prefilter)
        feasible = np.zeros(0, np.int64)
    else:
        feasible = _nominated_first(sched, target, state, filters)
        outcome_statuses = {}
        if feasible is None:
            outcome = sched.find_feasible(target, state, filters)
            feasible, outcome_statuses = outcome.feasible, outcome.statuses
    statuses = {names[i]: s for i, s in outcome_statuses.items()}
    if feasible.size:
        best, scores = sched.select_host(state, feasible)
        per_node: dict[str, dict[str, int]] = {}
        for plugin, arr in scores.items():
            for pos, i in enumerate(feasible.tolist()):
                per_node.setdefault(names[i], {})[plugin] = int(arr[pos])
        return Decision(target.key, SCHEDULED, names[best], statuses=statuses, scores=per_node,
                        num_nodes=len(names))
    message = fit_error_message(len(names), outcome_statuses, prefilter)
    if not preemption:
        return Decision(target.key, UNSCHEDULABLE, None, message=message, statuses=statuses,
                        num_nodes=len(names))
    result = Preemptor(sched, sample=sample, seed=seed, now=now).preempt(
        target, state, filters, outcome_statuses)
    pre_statuses = {names[i]: s for i, s in result.statuses.items()}
    if result.node is None:
        return Decision(target.key, UNSCHEDULABLE, None, message=f"{message} {result.message}.",
                        statuses=statuses, preemption=result, num_nodes=len(names),
                        preemption_statuses=pre_statuses)
    return Decision(target.key, PREEMPT, result.node, [p.key for p in result.victims],
                    pdb_violations=result.pdb_violations,
                    cleared_nominations=[p.key for p in result.cleared_nominations],
                    statuses=statuses, preemption=result, num_nodes=len(names),
                    preemption_statuses=pre_statuses)


def _nominated_first(sched: Scheduler, pod: Pod, state, filters) -> np.ndarray | None:
    """Upstream tries a pod's nominated node first and takes it if it passes every filter."""
    idx = sched.cluster.node_index.get(pod.nominated_node_name)
    if idx is None:
        return None
    status = sched.filter_with_nominated(state, sched.cluster.node_view(idx), filters)
    return np.array([idx], np.int64) if status is None else None
