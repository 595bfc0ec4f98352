"""``advise``: what would it take for a pod (or a workload's pods) to get a node?

Every answer comes from re-running the real decision (the same sequential placement as
``schedule -f``, each trial undone afterwards), never from a formula:

* **priority** — the lowest priority value at which every pod is scheduled or preempts,
  searched over the values where the outcome can change (each existing pod priority and
  that plus one, and the int32 minimum: a pod that fits as it is may have any priority;
  a binary search, assuming a higher priority never places fewer pods),
  and the lowest existing PriorityClass at or above it (tried with its own
  preemptionPolicy), each with the victims it takes;
* **PDBs** — at that priority, the PodDisruptionBudgets the victims violate, and those
  that change the decision: lifting one budget alone (unlimited disruptions) gives
  another node or other victims;
* **nodes** — how many nodes like ``--node-like`` (labels, taints, allocatable; a fresh
  hostname) or of ``--node-shape`` must be added for every pod to fit with preemption
  off (galloping then binary search over the count);
* **filters** — for the first pod left pending, in the state the sequential placement
  had reached when its cycle failed (earlier pods placed, victims terminating,
  nominations made): how many nodes each filter plugin rejects, and for taints, node
  affinity/selector, topology spread and inter-pod affinity the smallest change to the
  pod (tolerations added, selector keys dropped, maxSkew raised, a required term
  dropped) that lets some rejected node past that filter, with the decision it would
  then get. Nothing is applied.
"""

from __future__ import annotations

import copy
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from kubepreempt.api.errors import InputError
from kubepreempt.api.objects import (
    NO_EXECUTE,
    NO_SCHEDULE,
    Affinity,
    Node,
    Pod,
    Taint,
    Toleration,
    tolerates_all,
)
from kubepreempt.api.priority import PriorityClass
from kubepreempt.api.quantity import QuantityError, canonical
from kubepreempt.apimachinery.validation import label_value, qualified_name
from kubepreempt.cluster import Cluster
from kubepreempt.decide import PREEMPT, SCHEDULED, UNSCHEDULABLE, Decision, schedule
from kubepreempt.scheduler.plugins.pod_topology_spread import pre_filter_state
from kubepreempt.whatif.place import WhatIf, place, restore

MAX_USER_PRIORITY = 1_000_000_000  # the highest value a user PriorityClass may have
MIN_PRIORITY = -(2**31)  # priorities are int32
MAX_NODES = 4096  # the node search gives up beyond this many added nodes
T = TypeVar("T")  # one trial's result (a WhatIf, or a gang's GroupDecision)


# ---- trials --------------------------------------------------------------------------------
def fresh(pod: Pod, **changes: Any) -> Pod:
    """An unbound, un-nominated copy of ``pod`` with ``changes`` applied."""
    out = copy.copy(pod)
    out.node_name, out.nominated_node_name, out.start_time = "", "", None
    for key, value in changes.items():
        setattr(out, key, value)
    return out


Workload = tuple[str, list[Pod], bool]


def trial(cluster: Cluster, workloads: list[Workload], *, preemption: bool = True,
          now: float, change: Callable[[Pod], Pod] | None = None,
          pdb_allowed: Mapping[str, int] | None = None,
          on_pending: Callable[[Pod], None] | None = None) -> WhatIf:
    """Place fresh copies of the workloads' pods (``change`` applied), then undo it all.

    ``pdb_allowed`` overrides budgets' allowed disruptions (by ``ns/name``) for the trial;
    ``on_pending`` is :func:`place`'s hook, run in the state a failing cycle saw.
    """
    pending = dict(cluster.pending)
    nominations = {k: p.nominated_node_name for k, p in pending.items()}
    allowed = [pdb.disruptions_allowed for pdb in cluster.pdbs]
    if pdb_allowed:
        for pdb in cluster.pdbs:
            if pdb.key in pdb_allowed:
                pdb.disruptions_allowed = pdb_allowed[pdb.key]
    groups = [(key, [(change or fresh)(fresh(p)) for p in pods], ordered)
              for key, pods, ordered in workloads]
    result = place(cluster, groups, preemption=preemption, now=now, on_pending=on_pending)
    for placement in reversed(result.placements):
        if (placement.result == SCHEDULED or placement.bound_node) \
                and placement.pod.key in cluster.pods:
            cluster.remove(placement.pod)
        for victim in reversed(placement.victims):
            restore(cluster, victim)
    cluster.pending.clear()
    cluster.pending.update(pending)
    for key, node in nominations.items():
        pending[key].nominated_node_name = node
    for pdb, n in zip(cluster.pdbs, allowed, strict=True):
        pdb.disruptions_allowed = n
    return result


def placed(result: WhatIf) -> bool:
    """True when every pod was scheduled or preempted, or bound once the victims of
    earlier pods left (none pending or not created)."""
    return all(p.result in (SCHEDULED, PREEMPT) or p.bound_node for p in result.placements)


def _victims(result: WhatIf) -> list[str]:
    return [v.key for v in result.victims]


def _outcome(result: WhatIf) -> dict[str, Any]:
    s = result.summary()
    out: dict[str, Any] = {"placed": placed(result), "scheduled": s["scheduled"],
                           "preempting": s["preempting"], "pending": s["pending"],
                           "notCreated": s["notCreated"], "rejected": s["rejected"],
                           "victims": _victims(result),
                           "pdbViolations": s["pdbViolations"]}
    if len(result.placements) == 1:
        p = result.placements[0]
        out.update(result=p.result, node=p.node)
        if p.message:
            out["message"] = p.message
    return out


# ---- priority ------------------------------------------------------------------------------
def _priority_candidates(cluster: Cluster, current: int) -> list[int]:
    levels = {p.priority for p in cluster.pods.values()}
    levels |= {p.priority for p in cluster.pending.values()}
    values = {current, MIN_PRIORITY, MAX_USER_PRIORITY}
    for v in levels:
        values.update((v, v + 1))
    return sorted(v for v in values if MIN_PRIORITY <= v <= MAX_USER_PRIORITY)


def priority_candidates(cluster: Cluster, current: int,
                        more: Iterable[int] = ()) -> list[int]:
    """The priority values where an outcome can change, lowest first: every existing
    pod priority (and ``more``, e.g. the PodGroups' priorities) and that plus one, the
    current value, the int32 minimum and the highest user value."""
    values = _priority_candidates(cluster, current)
    extra = {x for v in more for x in (v, v + 1)}
    return sorted(set(values) | {v for v in extra if MIN_PRIORITY <= v <= MAX_USER_PRIORITY})


def bisect_lowest(values: list[int], at: Callable[[int], T], ok: Callable[[T], bool]
                  ) -> tuple[int | None, T | None]:
    """The lowest of ``values`` (sorted) whose trial ``at(v)`` is ``ok``, with that
    trial, by binary search (assuming a higher value is never worse); None when even
    the highest is not."""
    top = at(values[-1])
    if not ok(top):
        return None, None
    lo, hi, best = 0, len(values) - 1, top
    while lo < hi:  # invariant: values[hi] is ok
        mid = (lo + hi) // 2
        got = at(values[mid])
        if ok(got):
            hi, best = mid, got
        else:
            lo = mid + 1
    return values[hi], best


def lowest_priority(cluster: Cluster, workloads: list[Workload], now: float
                    ) -> tuple[int | None, WhatIf | None]:
    """The lowest candidate priority at which every pod is placed, with that trial."""
    current = workloads[0][1][0].priority
    values = _priority_candidates(cluster, current)

    def at(v: int) -> WhatIf:
        return trial(cluster, workloads, now=now, change=lambda p: fresh(p, priority=v))

    return bisect_lowest(values, at, placed)


def lowest_class(cluster: Cluster, workloads: list[Workload], value: int, now: float
                 ) -> tuple[PriorityClass | None, WhatIf | None]:
    """The lowest existing PriorityClass with value >= ``value`` that places every pod."""
    classes = sorted((pc for pc in cluster.priority.classes.values() if pc.value >= value),
                     key=lambda pc: (pc.value, pc.name))
    for pc in classes:
        got = trial(cluster, workloads, now=now, change=lambda p, pc=pc: fresh(
            p, priority=pc.value, priority_class_name=pc.name,
            preemption_policy=pc.preemption_policy))
        if placed(got):
            return pc, got
    return None, None


# ---- PDBs ----------------------------------------------------------------------------------
def pdb_report(cluster: Cluster, workloads: list[Workload], base: WhatIf,
               change: Callable[[Pod], Pod] | None, now: float) -> dict[str, Any]:
    """Budgets violated by ``base``'s victims, and budgets whose lifting alone changes the
    decision (a victim reprieved, or another node chosen, because of them)."""
    unlimited = {pdb.key: 1 << 30 for pdb in cluster.pdbs}
    free = trial(cluster, workloads, now=now, change=change, pdb_allowed=unlimited)

    def covering(pods: Iterable[Pod]) -> set[str]:
        return budgets_covering(cluster, pods)

    violated = sorted(covering(v for p in base.placements if p.pdb_violations
                               for v in p.victims))
    relevant = sorted(covering([*base.victims, *free.victims]))
    blocking = []
    signature = _signature(base)
    for key in relevant:
        lifted = trial(cluster, workloads, now=now, change=change,
                       pdb_allowed={key: 1 << 30})
        if _signature(lifted) != signature:
            blocking.append({"pdb": key, "withoutIt": _outcome(lifted)})
    return {"violated": violated, "blocking": blocking,
            "withoutAnyPdb": _outcome(free)}


def budgets_covering(cluster: Cluster, pods: Iterable[Pod]) -> set[str]:
    """``ns/name`` of every PodDisruptionBudget whose selector matches one of ``pods``."""
    keys = set()
    for pod in pods:
        for pdb in cluster.pdbs:
            if (pdb.namespace == pod.namespace and pdb.selector is not None
                    and pdb.selector.matches(pod.labels)):
                keys.add(pdb.key)
    return keys


def _signature(result: WhatIf) -> list[tuple[str, str | None, tuple[str, ...]]]:
    return [(p.result, p.node, tuple(v.key for v in p.victims)) for p in result.placements]


# ---- nodes ---------------------------------------------------------------------------------
def parse_shape(text: str, labels: Iterable[str] = (), taints: Iterable[str] = ()) -> Node:
    """``cpu=8,memory=32Gi,pods=110`` (+ ``key=value`` labels, ``key=value:Effect`` taints)
    -> a node template."""
    alloc: dict[str, int] = {}
    for part in text.split(","):
        name, sep, qty = part.strip().partition("=")
        if not sep or not name:
            raise InputError(f"--node-shape: {part!r} is not RESOURCE=QUANTITY")
        try:
            alloc[name] = canonical(name, qty)
        except QuantityError as exc:
            raise InputError(f"--node-shape: {name}: {exc}") from None
    alloc.setdefault("pods", 110)
    # Keys and values as the apiserver validates a Node's (ValidateLabels; validateTaints:
    # a qualified-name key, a label value, one of the three effects): an added node it
    # would refuse is no answer.
    node_labels = {}
    for item in labels:
        k, sep, v = item.partition("=")
        if not sep or qualified_name(k) or label_value(v):
            raise InputError(f"--node-label: {item!r} is not KEY=VALUE")
        node_labels[k] = v
    node_taints = []
    for item in taints:
        kv, sep, effect = item.rpartition(":")
        k, _, v = kv.partition("=")
        if not sep or effect not in (NO_SCHEDULE, NO_EXECUTE, "PreferNoSchedule") \
                or qualified_name(k) or label_value(v):
            raise InputError(f"--node-taint: {item!r} is not KEY[=VALUE]:EFFECT")
        node_taints.append(Taint(k, v, effect))
    return Node("shape", labels=node_labels, taints=tuple(node_taints), allocatable=alloc)


def node_like(cluster: Cluster, name: str) -> Node:
    """The template for ``--node-like NAME``: that node's labels, taints, allocatable."""
    idx = cluster.node_index.get(name)
    if idx is None:
        raise InputError(f"--node-like {name}: no such node in the input")
    return cluster.nodes[idx]


def _copies(template: Node, cluster: Cluster, count: int, start: int) -> list[Node]:
    out = []
    for i in range(start, start + count):
        name = f"{template.name}-added-{i}"
        while name in cluster.node_index:
            name += "x"
        labels = dict(template.labels)
        labels["kubernetes.io/hostname"] = name
        out.append(Node(name, labels=labels, taints=template.taints,
                        unschedulable=False, allocatable=dict(template.allocatable)))
    return out


def nodes_needed(cluster: Cluster, workloads: list[Workload], template: Node, now: float,
                 change: Callable[[Pod], Pod] | None = None
                 ) -> tuple[int | None, WhatIf | None, str | None]:
    """Fewest added copies of ``template`` for every pod to fit without preemption.

    Gives up (None and the rejecting filter's reason) when the first pod left pending
    is rejected by an added, empty node: more such nodes cannot help.
    """
    return count_nodes(
        cluster, template,
        lambda: trial(cluster, workloads, preemption=False, now=now, change=change),
        placed, lambda got: _rejects_empty(cluster, got))


def count_nodes(cluster: Cluster, template: Node, run: Callable[[], T],
                ok: Callable[[T], bool], rejected: Callable[[T], str | None]
                ) -> tuple[int | None, T | None, str | None]:
    """Fewest added copies of ``template`` with which the trial ``run()`` is ``ok``:
    galloping, then binary search over the count (the nodes are removed again).
    ``rejected(trial)`` with one node added: why that empty node still rejects what is
    left pending (then more such nodes cannot help: None and that reason)."""
    added = 0

    def fits_with(k: int) -> T:
        nonlocal added
        if k > added:
            cluster.add_nodes(_copies(template, cluster, k - added, added))
        elif k < added:
            cluster.pop_nodes(added - k)
        added = k
        return run()

    try:
        got = fits_with(0)
        if ok(got):
            return 0, got, None
        lo, hi = 0, 1
        while True:  # gallop: lo fails, find a hi that fits
            got = fits_with(hi)
            if ok(got):
                break
            if hi == 1:
                reason = rejected(got)
                if reason is not None:
                    return None, None, reason
            lo, hi = hi, hi * 2
            if hi > MAX_NODES:
                return None, None, None
        best = got
        while hi - lo > 1:
            mid = (lo + hi) // 2
            got = fits_with(mid)
            if ok(got):
                hi, best = mid, got
            else:
                lo = mid
        return hi, best, None
    finally:
        cluster.pop_nodes(added)


def _rejects_empty(cluster: Cluster, failed: WhatIf) -> str | None:
    """Why the last added (empty) node rejects the first pending pod, if it does."""
    first = next((p for p in failed.placements if p.result == UNSCHEDULABLE), None)
    return None if first is None else rejected_by_last_node(cluster, first.pod)


def rejected_by_last_node(cluster: Cluster, pod: Pod) -> str | None:
    """Why the most recently added node rejects ``pod`` (a fresh copy, preemption
    off), as ``Plugin: reasons``; None when it does not."""
    decision = schedule(cluster, fresh(pod), preemption=False)
    status = decision.statuses.get(cluster.nodes[-1].name)
    return None if status is None else f"{status.plugin}: {'; '.join(status.reasons)}"


# ---- filters -------------------------------------------------------------------------------
@dataclass(slots=True)
class Suggestion:
    """One change to the pod and how many nodes it lets past the filter it targets."""

    plugin: str
    change: str
    size: int  # how big the change is (tolerations added, keys dropped, skew raised)
    apply: Callable[[Pod], Pod] = field(repr=False)


def _untolerated(pod: Pod, node: Node) -> tuple[Taint, ...]:
    return tuple(t for t in node.taints if t.effect in (NO_SCHEDULE, NO_EXECUTE)
                 and not tolerates_all(pod.tolerations, t))


def _suggestions(cluster: Cluster, pod: Pod, decision: Decision) -> list[Suggestion]:
    """Candidate changes per rejecting plugin, smallest first within each plugin."""
    by_plugin: dict[str, list[str]] = {}
    for node, st in decision.statuses.items():
        by_plugin.setdefault(st.plugin, []).append(node)
    out: list[Suggestion] = []
    nodes = {n.name: n for n in cluster.nodes}
    taint_sets = Counter(_untolerated(pod, nodes[n]) for n in by_plugin.get("TaintToleration", ()))
    for taints, _ in sorted(taint_sets.items(), key=lambda kv: (len(kv[0]), -kv[1]))[:3]:
        if not taints:
            continue
        tols = tuple(Toleration(t.key, "Equal" if t.value else "Exists", t.value, t.effect)
                     for t in taints)
        text = ", ".join(f"{t.key}{'=' + t.value if t.value else ''}:{t.effect}"
                         for t in taints)
        out.append(Suggestion("TaintToleration", f"tolerate {text}", len(tols),
                              lambda p, tols=tols: fresh(p, tolerations=p.tolerations + tols)))
    affinity_nodes = by_plugin.get("NodeAffinity", ())
    if affinity_nodes:
        missing = Counter(tuple(sorted(k for k, v in pod.node_selector.items()
                                       if nodes[n].labels.get(k) != v)) for n in affinity_nodes)
        for keys, _ in sorted(missing.items(), key=lambda kv: (len(kv[0]), -kv[1]))[:3]:
            if keys:
                out.append(Suggestion(
                    "NodeAffinity", f"drop nodeSelector {', '.join(keys)}", len(keys),
                    lambda p, keys=keys: fresh(p, node_selector={
                        k: v for k, v in p.node_selector.items() if k not in keys})))
        if pod.affinity is not None and pod.affinity.node_required is not None:
            out.append(Suggestion(
                "NodeAffinity", "drop the required node affinity", 1,
                lambda p: fresh(p, affinity=replace(p.affinity, node_required=None))))
    spread_nodes = by_plugin.get("PodTopologySpread", ())
    state = pre_filter_state(pod, cluster) if spread_nodes else None
    if state is not None:
        raises = Counter()
        for name in spread_nodes:
            labels = nodes[name].labels
            need = []
            for i, c in enumerate(state.constraints):
                value = labels.get(c.topology_key)
                if value is None:
                    break  # a missing topology key: no maxSkew admits this node
                skew = state.counts[i].get(value, 0) + state.self_match[i] - state.min_match(i)
                need.append(max(c.max_skew, skew))
            else:
                raises[tuple(need)] += 1
        for need, _ in sorted(raises.items(), key=lambda kv: (
                sum(n - c.max_skew for n, c in zip(kv[0], state.constraints, strict=True)),
                -kv[1]))[:3]:
            pairs = [(c, n) for c, n in zip(state.constraints, need, strict=True)
                     if n > c.max_skew]
            text = "; ".join(f"raise maxSkew of the {c.topology_key} constraint from "
                             f"{c.max_skew} to {n}" for c, n in pairs)
            out.append(Suggestion(
                "PodTopologySpread", text, sum(n - c.max_skew for c, n in pairs),
                lambda p, pairs=pairs: fresh(p, spread=tuple(
                    replace(s, max_skew=next((n for c, n in pairs if c == s), s.max_skew))
                    for s in p.spread))))
    if by_plugin.get("InterPodAffinity") and pod.affinity is not None:
        for attr, what in (("pod_required", "pod affinity"),
                           ("anti_required", "pod anti-affinity")):
            for j, term in enumerate(getattr(pod.affinity, attr)):
                out.append(Suggestion(
                    "InterPodAffinity",
                    f"drop required {what} term {j} (topologyKey {term.topology_key})", 1,
                    lambda p, attr=attr, j=j: fresh(p, affinity=_drop_term(p.affinity, attr, j))))
    return out


def _drop_term(affinity: Affinity | None, attr: str, index: int) -> Affinity | None:
    assert affinity is not None
    terms = getattr(affinity, attr)
    return replace(affinity, **{attr: terms[:index] + terms[index + 1:]})


def filter_report(cluster: Cluster, pod: Pod, now: float,
                  changes: dict[str, Callable[[Pod], Pod]] | None = None
                  ) -> list[dict[str, Any]]:
    """Nodes rejected per filter plugin, and the smallest verified change per plugin
    (``changes``, when given, receives each suggested change as a function of a pod, by
    plugin: a gang's advice applies it to every member)."""
    decision = schedule(cluster, fresh(pod), now=now)
    counts = Counter(st.plugin for st in decision.statuses.values())
    reasons: dict[str, Counter[str]] = {}
    for st in decision.statuses.values():
        reasons.setdefault(st.plugin, Counter()).update(st.reasons)
    best: dict[str, dict[str, Any]] = {}
    for s in sorted(_suggestions(cluster, pod, decision), key=lambda s: s.size):
        if s.plugin in best and best[s.plugin]["size"] < s.size:
            continue
        changed = schedule(cluster, s.apply(fresh(pod)), now=now)
        still = sum(1 for st in changed.statuses.values() if st.plugin == s.plugin)
        admitted = counts[s.plugin] - still
        if admitted <= 0:
            continue
        current = best.get(s.plugin)
        if current is None or (s.size, -admitted) < (current["size"], -current["admits"]):
            best[s.plugin] = {"change": s.change, "size": s.size, "admits": admitted,
                              "result": changed.result, "node": changed.node,
                              "victims": sorted(changed.victims), "apply": s.apply}
    out = []
    for plugin, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        entry: dict[str, Any] = {"plugin": plugin, "nodes": n,
                                 "reasons": dict(sorted(reasons[plugin].items()))}
        if plugin in best:
            entry["suggestion"] = {k: v for k, v in best[plugin].items()
                                   if k not in ("size", "apply")}
            if changes is not None:
                changes[plugin] = best[plugin]["apply"]
        out.append(entry)
    return out


# ---- the report ----------------------------------------------------------------------------
@dataclass(slots=True)
class Advice:
    """Everything ``advise`` answers (``to_json`` is the ``-o json`` object)."""

    subject: str
    pods: int
    current: dict[str, Any]
    priority: dict[str, Any]
    pdbs: dict[str, Any]
    nodes: dict[str, Any] | None
    filters: list[dict[str, Any]]
    filters_pod: str | None
    # the PodGroup decided whole (``advise -f`` of a gang); None: pods one by one
    pod_group: str | None = None
    # why a gang is held before any cycle (fewer pods than minCount); None: it is not
    waiting: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``-o json`` object (``podGroup``, and ``waiting`` when set, first for a
        gang)."""
        head: dict[str, Any] = {} if self.pod_group is None else {"podGroup": self.pod_group}
        if self.waiting is not None:
            head["waiting"] = self.waiting
        return {**head, "subject": self.subject, "pods": self.pods, "current": self.current,
                "priority": self.priority, "pdbs": self.pdbs, "nodes": self.nodes,
                "filters": {"pod": self.filters_pod, "plugins": self.filters}}


def advise(cluster: Cluster, workloads: list[Workload], *, subject: str,
           node_template: Node | None = None, now: float | None = None) -> Advice:
    """Answer the four questions for ``workloads`` (the cluster is left as it was)."""
    at = time.time() if now is None else now
    pods = [p for _, ps, _ in workloads for p in ps]
    if not pods:
        raise InputError(f"{subject}: nothing to advise on (no pods)")
    base = trial(cluster, workloads, now=at)
    current = {"priority": pods[0].priority, **_outcome(base)}
    value, at_value = lowest_priority(cluster, workloads, at)
    priority: dict[str, Any] = {"lowestValue": value}
    change = None
    if value is not None and at_value is not None:
        priority.update(_outcome(at_value))
        pc, at_class = lowest_class(cluster, workloads, value, at)
        priority["lowestClass"] = None if pc is None or at_class is None else {
            "name": pc.name, "value": pc.value, "preemptionPolicy": pc.preemption_policy,
            **_outcome(at_class)}

        def change(p: Pod, v: int = value) -> Pod:
            return fresh(p, priority=v)
    else:
        priority["lowestClass"] = None
    pdb_base = at_value if at_value is not None else base
    pdbs = pdb_report(cluster, workloads, pdb_base, change, at)
    nodes = None
    if node_template is not None:
        k, got, rejected = nodes_needed(cluster, workloads, node_template, at)
        nodes = {"template": node_template.name,
                 "allocatable": dict(node_template.allocatable),
                 "needed": k, "searchedUpTo": MAX_NODES, "rejectedBy": rejected}
        if got is not None:
            nodes["placements"] = dict(sorted(Counter(str(p.node) for p in got.placements).items()))
    target, filters = pending_filters(cluster, workloads, base, at)
    return Advice(subject, len(pods), current, priority, pdbs, nodes, filters, target)


def pending_filters(cluster: Cluster, workloads: list[Workload], base: WhatIf, now: float
                    ) -> tuple[str | None, list[dict[str, Any]]]:
    """:func:`filter_report` for the first pod ``base`` leaves pending, analysed in the
    state ``schedule -f`` reached when that pod's cycle failed (the earlier pods placed,
    their victims terminating, the nominations made): the trial is replayed and the
    report taken at that moment."""
    first = next((p for p in base.placements
                  if p.result == UNSCHEDULABLE and not p.bound_node), None)
    if first is None:
        return None, []
    key = first.pod.key
    report: list[list[dict[str, Any]]] = []

    def analyse(pod: Pod) -> None:
        if pod.key == key and not report:
            report.append(filter_report(cluster, pod, now))

    trial(cluster, workloads, now=now, on_pending=analyse)
    return key, report[0] if report else []
