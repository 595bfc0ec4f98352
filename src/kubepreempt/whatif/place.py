"""Place new pods one at a time, in the order kube-scheduler's queue pops them.

The queue is upstream's ``PrioritySort``: higher priority first, then the time the pod
entered the queue (here: creation order — the workloads' pods in input order, each
workload's pods in the order its controller creates them). A StatefulSet with
``podManagementPolicy: OrderedReady`` creates its next pod only once the previous one is
Running and Ready, so that pod joins the back of the queue only after its predecessor was
placed (bound, or nominated after preempting: it binds once its victims are gone); if the
predecessor stays pending, the rest are reported as not created.

Each decision is one ``schedule_one`` cycle (the library's, simulator's and bench's) with
one shared :class:`Scheduler`, applied before the next pod: a bind takes its place; a
preemption deletes its victims (their PodDisruptionBudgets lose one allowed disruption
each, as the disruption controller would recompute), clears the lower-priority
nominations it displaced and nominates the pod, which then counts on that node for
everyone after it (the two-pass nominated check). A deleted victim stays in the snapshot,
holding its resources, until its grace period ends, as in the scheduler cache: a later
pod that needs that room is nominated behind the same victim ("waiting for preemption
victims on NODE", no second delete) or stays pending. At each end of a grace period the
pods not yet bound are tried again in queue order (:func:`_settle`); a pod that fits
nowhere for other reasons stays pending (upstream would retry it on later cluster events
too — the answer here is for the moment of apply and the victims' departure).

Every new pod first passes the apiserver's ResourceQuota admission
(:mod:`kubepreempt.admission.quota`) when its controller creates it, against the pods that
exist at that moment (the cluster's and the new pods created before it): a refused pod is
reported ``rejected`` with the apiserver's message and never queued (its controller would
retry later; an OrderedReady StatefulSet creates nothing after it).

Identical pending replicas are answered once. When a pod's cycle ends unschedulable and
the next pod taken from the queue comes from the same workload with the same template (every
scheduling input equal but the name and UID: a Deployment's, ReplicaSet's or plain Job's
replicas, not a StatefulSet's or Indexed Job's, whose pods differ in hostname, labels or
claims) and nothing was bound, nominated or deleted in between, it gets the same answer
without a new cycle: upstream's cycle for it would see the same snapshot, run the same
filters on the same pod spec and return the same FitError (an unschedulable cycle changes
nothing, and pods waiting in the queue are not in the snapshot). This is what makes a
100,000-replica Deployment that does not fit cost one cycle per distinct answer rather than
one per pod.
"""

from __future__ import annotations

import copy
import heapq
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field, fields
from itertools import chain
from operator import attrgetter
from typing import Any

from kubepreempt.api.errors import InputError, Source
from kubepreempt.api.objects import Pod, parse_pod
from kubepreempt.api.priority import parse_priority_class
from kubepreempt.api.spread_sources import SOURCE_KINDS
from kubepreempt.cluster import Cluster
from kubepreempt.controllers.expand import (
    POD_TEMPLATE_HASH,
    WORKLOAD_KINDS,
    Expansion,
    Names,
    expand,
)
from kubepreempt.decide import (
    IGNORED,
    PREEMPT,
    SCHEDULED,
    SKIPPED,
    UNSCHEDULABLE,
    Decision,
    decision_from,
)
from kubepreempt.manifests import Documents
from kubepreempt.scheduler.cycle import schedule_one
from kubepreempt.scheduler.preemption import Evaluator
from kubepreempt.scheduler.scheduler import Scheduler

NOT_CREATED = "not-created"
REJECTED = "rejected"  # refused by the apiserver's ResourceQuota admission
FITS_NOWHERE = "preempted, but fits nowhere once its victims left"
# The kinds `schedule -f` / `advise -f` read from the new documents.
NEW_KINDS = ("Pod", "PriorityClass", *WORKLOAD_KINDS, *SOURCE_KINDS)

#: Called as ``(pods decided, pods queued so far)`` after each decision of :func:`place`
#: (a command sets it to show progress; None: nothing is reported).
PROGRESS: ContextVar[Callable[[int, int], None] | None] = ContextVar("PROGRESS", default=None)


@dataclass(slots=True, eq=False)
class Placement:
    """What happened to one new pod."""

    pod: Pod
    workload: str  # Kind/namespace/name, or Pod/namespace/name for a bare pod
    result: str  # scheduled | preempt | unschedulable | not-created | rejected
    node: str | None = None
    victims: list[Pod] = field(default_factory=list)
    message: str = ""
    pdb_violations: int = 0
    cleared_nominations: list[str] = field(default_factory=list)
    decision: Decision | None = None
    bound_node: str | None = None  # a preemptor's node once its victims are gone
    bound_at: float | None = None  # when it bound (scheduled: at once; else victims gone)
    # the pod of the same template whose unschedulable cycle answered this one (None: its
    # own cycle decided it)
    answered_by: str | None = None

    def to_json(self, explain: bool = False) -> dict[str, Any]:
        """One entry of the ``pods`` list of ``-o json``."""
        if self.decision is not None:
            out = self.decision.to_json(explain=explain)
        else:
            out = {"pod": self.pod.key, "result": self.result, "node": None, "victims": []}
        out["workload"] = self.workload
        out["priority"] = self.pod.priority
        out["result"] = self.result  # a pending pod may preempt once victims left
        if self.bound_node and self.result != PREEMPT:
            out["boundTo"] = self.bound_node  # bound once terminating victims left
        if self.result == PREEMPT:
            # The settle pass may have preempted again: report everything it did.
            out.update(node=self.node, victims=sorted(v.key for v in self.victims),
                       pdbViolations=self.pdb_violations,
                       clearedNominations=sorted(self.cleared_nominations),
                       boundTo=self.bound_node)
        if self.message:
            out["message"] = self.message
        return out


@dataclass(slots=True)
class WhatIf:
    """Every new pod's placement, in the order they were decided (not-created last)."""

    placements: list[Placement]
    # workload objects (and a Deployment's ReplicaSet) refused by object-count quota:
    # (Kind/namespace/name, the apiserver's message); they create no pods
    rejected_objects: list[tuple[str, str]] = field(default_factory=list)
    # (Kind/namespace/name, existing pods its ReplicaSet adopted instead of creating them)
    adopted: list[tuple[str, list[str]]] = field(default_factory=list)

    def count(self, result: str) -> int:
        """How many pods ended with ``result``."""
        return sum(1 for p in self.placements if p.result == result)

    @property
    def victims(self) -> list[Pod]:
        """Every pod deleted by a preemption, in order."""
        return [v for p in self.placements for v in p.victims]

    def summary(self) -> dict[str, Any]:
        """Counts, victims by owner and by PriorityClass, PDB violations, nominations."""
        victims = self.victims
        by_owner = Counter(owner_of(v) for v in victims)
        by_class = Counter(v.priority_class_name or f"(priority {v.priority})"
                           for v in victims)
        return {
            "pods": len(self.placements),
            "scheduled": self.count(SCHEDULED),
            "preempting": self.count(PREEMPT),
            "boundAfterPreemption": sum(1 for p in self.placements
                                        if p.result == PREEMPT and p.bound_node),
            "pending": sum(1 for p in self.placements
                           if p.result == UNSCHEDULABLE and not p.bound_node),
            "boundAfterWaiting": sum(1 for p in self.placements
                                     if p.result == UNSCHEDULABLE and p.bound_node),
            "ignored": self.count(IGNORED) + self.count(SKIPPED),
            "notCreated": self.count(NOT_CREATED),
            "rejected": self.count(REJECTED),
            "victims": len(victims),
            "victimsByOwner": dict(sorted(by_owner.items())),
            "victimsByPriorityClass": dict(sorted(by_class.items())),
            "pdbViolations": sum(p.pdb_violations for p in self.placements),
            "clearedNominations": sorted({k for p in self.placements
                                          for k in p.cleared_nominations}),
            "rejectedObjects": [{"object": k, "message": msg}
                                for k, msg in self.rejected_objects],
            "adoptedPods": {k: sorted(pods) for k, pods in self.adopted},
        }

    def to_json(self, explain: bool = False) -> dict[str, Any]:
        """The ``-o json`` object: ``pods`` (in decision order) and ``summary``."""
        return {"pods": [p.to_json(explain) for p in self.placements],
                "summary": self.summary()}


def owner_of(pod: Pod) -> str:
    """``Kind/namespace/name`` of the pod's controller (a ReplicaSet named
    ``<deployment>-<pod-template-hash>`` is reported as its Deployment), or the pod."""
    meta = pod.raw.get("metadata") if isinstance(pod.raw, Mapping) else None
    for ref in (meta or {}).get("ownerReferences") or []:
        if not isinstance(ref, Mapping) or not ref.get("controller"):
            continue
        kind, name = str(ref.get("kind") or ""), str(ref.get("name") or "")
        suffix = "-" + pod.labels.get(POD_TEMPLATE_HASH, "\0")
        if kind == "ReplicaSet" and name.endswith(suffix) and len(name) > len(suffix):
            return f"Deployment/{pod.namespace}/{name[:-len(suffix)]}"
        return f"{kind}/{pod.namespace}/{name}"
    return f"Pod/{pod.key}"


@dataclass(slots=True)
class _Group:
    """One workload's pods waiting to be created (OrderedReady: one at a time)."""

    key: str
    pods: list[Pod]
    ordered: bool
    next: int = 0


def apply_priority_classes(cluster: Cluster, docs: Documents) -> None:
    """Create (or update) the PriorityClasses of ``docs`` before any pod: a bundle that
    defines the class its workloads use (a Helm chart's own class) is applied in order,
    and the controllers create their pods after the class exists."""
    for o in docs.of("PriorityClass"):
        cluster.priority.apply(parse_priority_class(o.body, o.source))


def expand_documents(cluster: Cluster, docs: Documents, *, seed: int = 0,
                     now: float = 0.0, refusals: list[tuple[str, str]] | None = None,
                     adopted: list[tuple[str, list[str]]] | None = None
                     ) -> list[tuple[str, list[Pod], bool, list[dict]]]:
    """Bare pods and workloads of ``docs`` as ``(workload, pods, ordered, created)``.

    Pods are typed with the cluster's PriorityClasses and those of ``docs``
    (:func:`apply_priority_classes`); generated names avoid the cluster's pods. A bare
    pod that already exists in the cluster is an input error. A ReplicaSet (a
    Deployment's too) first adopts the orphan pods its selector matches (the cluster's
    and the bare pods of ``docs``) and creates only the rest; ``adopted`` collects
    ``(workload, [pod keys])``.
    A workload object (or the ReplicaSet a Deployment creates) refused by object-count
    quota (``count/deployments.apps``, ...) yields no pods; ``refusals`` collects
    ``(Kind/namespace/name, message)``. The namespace's existing objects are the input's
    ReplicaSets and StatefulSets and the new objects before it (Deployments, Jobs,
    DaemonSets and CronJobs of a dump are not read).
    """
    apply_priority_classes(cluster, docs)
    names = Names(seed, set(cluster.pods) | set(cluster.pending))
    replicasets = [o.body for o in docs.of("ReplicaSet")] + list(cluster_replicasets(cluster))
    out: list[tuple[str, list[Pod], bool, list[dict]]] = []
    resolve = cluster.priority.resolve
    sources = cluster.spread_sources
    # the input's ReplicaSets / StatefulSets, before the new ones join the sources
    counts: Counter[tuple[str, str]] = Counter(
        (ns, kind) for kind, ns, _ in sources.controllers)
    for kind in SOURCE_KINDS:  # new Services and controllers select the new pods too
        for o in docs.of(kind):
            sources.add(kind, o.body, o.source)
    admit = cluster.runtime_classes.admit
    for o in docs.of("Pod"):
        pod = parse_pod(admit(o.body, o.source), o.source, resolve)
        if pod.bound:
            raise InputError("a new pod must not have spec.nodeName", o.source, "Pod", pod.key)
        if not names.claim(pod.namespace, pod.name):
            raise InputError("already exists in the cluster", o.source, "Pod", pod.key)
        out.append((f"Pod/{pod.key}", [pod], False, []))

    def admitted(kind: str, ns: str, name: str) -> bool:
        refusal = cluster.quota.admit_object(kind, ns, name, counts[(ns, kind)])
        if refusal is not None:
            if refusals is not None:
                refusals.append((f"{kind}/{ns}/{name}", refusal))
            return False
        counts[(ns, kind)] += 1
        return True

    for kind in WORKLOAD_KINDS:
        for o in docs.of(kind):
            if not admitted(kind, o.namespace or "default", o.name):
                continue
            existing = chain(cluster.pods.values(), cluster.pending.values(),
                             (p for _, pods, _, _ in out for p in pods))
            exp = expand(o.body, names, nodes=cluster.nodes, replicasets=replicasets,
                         now=now, source=o.source, existing=existing)
            if exp.adopted and adopted is not None:
                adopted.append((exp.key, exp.adopted))
            if not all(admitted(str(c.get("kind")), exp.namespace,
                                str((c.get("metadata") or {}).get("name")))
                       for c in exp.created):
                continue
            for created in exp.created:
                if created.get("kind") in SOURCE_KINDS:
                    sources.add(str(created["kind"]), created, o.source)
            out.append((exp.key, _typed(exp, resolve, admit), exp.ordered_ready,
                        exp.created))
    return out


def cluster_replicasets(cluster: Cluster) -> Iterable[Mapping[str, Any]]:
    """The ReplicaSets loaded with the cluster."""
    return list(cluster.spread_sources.replicaset_bodies)


def _typed(exp: Expansion, resolve, admit) -> list[Pod]:
    """Typed pods, each through the API server's RuntimeClass admission as it is created
    (before it has a UID: admission runs on create)."""
    out = []
    shared: Any = None  # the first replica's spec: equal later ones share it (memory)
    for i, manifest in enumerate(exp.pods):
        source = Source(f"{exp.source}:{exp.kind}/{exp.name}", i)
        meta = manifest["metadata"]
        bare = {**manifest, "metadata": {k: v for k, v in meta.items() if k != "uid"}}
        try:
            admitted = admit(bare, source)
            if admitted is not bare:
                manifest = {**admitted, "metadata": meta}
            spec = manifest.get("spec")
            if shared is None:
                shared = spec
            elif spec is not shared and spec == shared:
                manifest["spec"] = shared  # read only from here on
            out.append(parse_pod(manifest, source, resolve))
        except InputError as exc:
            # The pod comes from the workload's template: name the workload's document
            # once, then the field (every replica would fail the same way).
            raise InputError(exc.message, exp.source, exp.kind,
                             f"{exp.namespace}/{exp.name}") from None
    return out


def place(cluster: Cluster, workloads: Iterable[tuple[str, list[Pod], bool]], *,
          preemption: bool = True, explain: bool = False,
          scheduler: Scheduler | None = None, now: float | None = None,
          on_pending: Callable[[Pod], None] | None = None) -> WhatIf:
    """Decide and apply each new pod in queue order (see the module docstring).

    ``workloads`` are ``(workload key, pods in creation order, ordered_ready)``. The
    cluster is changed: binds, victims removed, nominations. ``explain`` keeps each
    :class:`Decision` (scores and statuses) on its placement. ``on_pending(pod)`` is
    called right after a pod's cycle fails, while the cluster is in the state that
    cycle saw.
    """
    sched = scheduler or Scheduler(cluster)
    at = time.time() if now is None else now
    groups = [_Group(key, list(pods), ordered) for key, pods, ordered in workloads]
    heap: list[tuple[int, int, int]] = []
    seq = 0

    placements: list[Placement] = []
    terminating: list[Pod] = []  # victims in their grace period, still on their nodes

    def create(gi: int) -> None:
        nonlocal seq
        group = groups[gi]
        pod = group.pods[group.next]
        group.next += 1
        refusal = admit(cluster, pod, at)
        if refusal is not None:
            placements.append(Placement(pod, group.key, REJECTED, message=refusal))
            return
        cluster.add_pending(pod)
        heapq.heappush(heap, (-pod.priority, seq, gi))
        seq += 1
        by_pod[seq - 1] = pod

    by_pod: dict[int, Pod] = {}
    for gi, group in enumerate(groups):
        for _ in range(1 if group.ordered else len(group.pods)):
            if group.next < len(group.pods):
                create(gi)
    progress = PROGRESS.get()
    # (group, pod, its placement) of the last cycle that ended unschedulable, while
    # nothing has changed since; None once anything is bound, nominated or deleted
    last_pending: tuple[int, Pod, Placement] | None = None
    while heap:
        _, s, gi = heapq.heappop(heap)
        pod = by_pod.pop(s)
        if last_pending is not None and last_pending[0] == gi \
                and same_template(last_pending[1], pod):
            placement = _answered_like(pod, last_pending[2])
        else:
            decision = decide(sched, pod, preemption, explain, at)
            placement = _apply(cluster, sched, pod, groups[gi].key, decision, at,
                               terminating)
            placement.decision = decision
        last_pending = (gi, pod, placement) if placement.result == UNSCHEDULABLE \
            and not pod.nominated_node_name else \
            (last_pending if placement.result in (IGNORED, SKIPPED) else None)
        placements.append(placement)
        if progress is not None:
            progress(len(placements), seq)
        if placement.result == UNSCHEDULABLE and on_pending is not None:
            on_pending(pod)
        group = groups[gi]
        if group.ordered and placement.result in (SCHEDULED, PREEMPT) \
                and group.next < len(group.pods):
            create(gi)
    _settle(cluster, sched, placements, preemption, at, terminating)
    for group in groups:
        prev = group.pods[group.next - 1].name if group.next else ""
        for pod in group.pods[group.next:]:
            placements.append(Placement(
                pod, group.key, NOT_CREATED,
                message=f"not created: OrderedReady waits for {prev} to be Running and Ready"))
    return WhatIf(placements)


# Pod fields that differ between replicas of one template without changing any answer.
_IDENTITY = frozenset({"name", "key", "uid", "source", "raw"})  # key: namespace/name
_scheduling_inputs = attrgetter(*(f.name for f in fields(Pod) if f.name not in _IDENTITY))


def same_template(a: Pod, b: Pod) -> bool:
    """True when ``a`` and ``b`` are replicas of one template: equal in every field the
    scheduler reads (namespace, labels, annotations, requests, priority, tolerations,
    affinity, spreading, ...) and in their manifests' ``spec``; only the name and UID
    may differ."""
    if _scheduling_inputs(a) != _scheduling_inputs(b):
        return False
    spec_a = a.raw.get("spec") if isinstance(a.raw, Mapping) else None
    spec_b = b.raw.get("spec") if isinstance(b.raw, Mapping) else None
    return spec_a == spec_b


def _answered_like(pod: Pod, first: Placement) -> Placement:
    """``pod``'s placement answered by the unschedulable cycle of ``first``, a replica of
    the same template decided in the same cluster state (see the module docstring)."""
    decision = None
    if first.decision is not None:
        decision = copy.copy(first.decision)  # shares the read-only statuses
        decision.pod = pod.key
    return Placement(pod, first.workload, first.result, message=first.message,
                     decision=decision, answered_by=first.answered_by or first.pod.key)


def admit(cluster: Cluster, pod: Pod, now: float) -> str | None:
    """The apiserver's ResourceQuota admission for a pod about to be created (None: it is
    created). Pods that exist already (``--pod``, advise's trials of one) were admitted."""
    if not cluster.quota.active or pod.key in cluster.pending or pod.key in cluster.pods:
        return None
    return cluster.quota.admit(pod, chain(cluster.pods.values(), cluster.pending.values()),
                               now)


def terminate(cluster: Cluster, victim: Pod, now: float) -> None:
    """Delete a victim as preemption does: it gets a deletionTimestamp and stays on its
    node, holding its resources, until its grace period ends (the scheduler cache keeps
    a terminating pod until the kubelet reports it gone)."""
    node = victim.node_name
    cluster.remove(victim)  # re-added: the snapshot's caches see the pod change
    victim.deletion_timestamp = now
    victim.preempted_by_scheduler = True
    cluster.bind(victim, node)


def gone_at(victim: Pod) -> float:
    """When a terminating victim leaves: its deletion time plus its grace period."""
    assert victim.deletion_timestamp is not None
    return victim.deletion_timestamp + float(victim.termination_grace_period)


def restore(cluster: Cluster, victim: Pod) -> None:
    """Undo :func:`terminate` (and the victim's removal, if it is gone already)."""
    node = victim.node_name
    if victim.key in cluster.pods:
        cluster.remove(victim)
    victim.deletion_timestamp = None
    victim.preempted_by_scheduler = False
    cluster.bind(victim, node)


def _settle(cluster: Cluster, sched: Scheduler, placements: list[Placement],
            preemption: bool, start: float, terminating: list[Pod]) -> None:
    """Victims take their grace period to go, far longer than the queue takes to drain.
    Each time some are gone (the earliest end of a grace period first), every pod not
    yet bound is tried again in queue order (priority, then creation), as the delete
    event requeues them: a nominated pod binds if it fits (its node first), or preempts
    again (a higher-priority pod may have taken the room, or its nomination been
    cleared); a pod that was pending because victims still held the room may now bind
    or preempt. Ends when no victim is terminating."""
    order = {id(p): i for i, p in enumerate(placements)}
    while terminating:
        t = min(gone_at(v) for v in terminating)
        for victim in [v for v in terminating if gone_at(v) <= t]:
            terminating.remove(victim)
            cluster.remove(victim)
        waiting = sorted((p for p in placements
                          if p.result in (PREEMPT, UNSCHEDULABLE) and not p.bound_node),
                         key=lambda p: (-p.pod.priority, order[id(p)]))
        # the last retry that failed and changed nothing: a replica of the same template
        # right after it fails the same way (see the module docstring)
        last: tuple[Placement, Decision] | None = None
        for p in waiting:
            if last is not None and last[0].workload == p.workload \
                    and last[0].result == p.result and not p.pod.nominated_node_name \
                    and same_template(last[0].pod, p.pod):
                decision = last[1]
            else:
                decision = decide(sched, p.pod, preemption, False, t)
            last = None
            if decision.result == SCHEDULED:
                assert decision.node is not None
                p.pod.start_time = t
                cluster.bind(p.pod, decision.node)
                sched.nominator.remove(p.pod)
                p.bound_node = decision.node
                p.bound_at = t
                if p.result == UNSCHEDULABLE:
                    p.message = (f"waited for preemption victims to leave; bound to "
                                 f"{decision.node} after {t - start:g}s")
                elif p.message.startswith(FITS_NOWHERE):  # an earlier round's failure
                    p.message = ""
                continue
            if decision.result != PREEMPT:
                pre = decision.preemption
                if pre is None or not pre.eligible:
                    if not p.pod.nominated_node_name:
                        last = (p, decision)
                    continue  # its own victims are still terminating: it keeps waiting
                if p.pod.nominated_node_name:
                    sched.nominator.remove(p.pod)  # preemption found no node: cleared
                else:
                    last = (p, decision)
                if p.result == PREEMPT:
                    p.message = f"{FITS_NOWHERE}: {decision.message}"
                continue
            again = _apply(cluster, sched, p.pod, p.workload, decision, t, terminating)
            p.result = PREEMPT
            p.node = again.node
            p.victims += again.victims
            p.pdb_violations += again.pdb_violations
            p.cleared_nominations += again.cleared_nominations
            p.message = again.message


def decide(sched: Scheduler, pod: Pod, preemption: bool, explain: bool, now: float
           ) -> Decision:
    """One scheduling cycle (``schedule_one``, the path the library, simulator and bench
    share); per-node statuses, scores and every candidate only with ``explain``."""
    evaluator = Evaluator(sched, now=now, materialize=explain)
    cycle = schedule_one(sched, pod, preemption=preemption, explain=explain, now=now,
                         evaluator=evaluator)
    return decision_from(cycle, sched.cluster)


def _apply(cluster: Cluster, sched: Scheduler, pod: Pod, workload: str,
           decision: Decision, now: float, terminating: list[Pod]) -> Placement:
    if decision.result == SCHEDULED:
        assert decision.node is not None
        pod.start_time = now  # it starts once bound: the newest pod for later preemptions
        cluster.bind(pod, decision.node)
        sched.nominator.remove(pod)
        return Placement(pod, workload, SCHEDULED, decision.node, bound_at=now)
    if decision.result == PREEMPT:
        assert decision.preemption is not None and decision.node is not None
        # Victims already terminating get no second delete (prepareCandidateAsync); when
        # none is left, no lower-priority nomination is cleared either.
        victims = [v for v in decision.preemption.victims if not v.terminating]
        for victim in victims:
            terminate(cluster, victim, now)
            terminating.append(victim)
            for pdb in cluster.pdbs:
                if (pdb.namespace == victim.namespace and pdb.selector is not None
                        and pdb.selector.matches(victim.labels)):
                    pdb.disruptions_allowed = max(0, pdb.disruptions_allowed - 1)
        cleared = list(decision.cleared_nominations) if victims else []
        if victims:
            for other in decision.preemption.cleared_nominations:
                sched.nominator.remove(other)
        sched.nominator.add(pod, decision.node)
        return Placement(pod, workload, PREEMPT, decision.node, victims,
                         message="" if victims else
                         f"waiting for preemption victims on {decision.node}",
                         pdb_violations=decision.pdb_violations if victims else 0,
                         cleared_nominations=cleared)
    # unschedulable, or ignored (another schedulerName) / skipped (being deleted)
    return Placement(pod, workload, decision.result, message=decision.message)


def what_if(cluster: Cluster, docs: Documents, *, seed: int = 0, now: float | None = None,
            preemption: bool = True, explain: bool = False,
            extra_pods: Iterable[Pod] = ()) -> WhatIf:
    """Library entry point: expand ``docs`` (Pods and workloads) and place every pod.

    ``extra_pods`` (pending pods already in the cluster, e.g. ``--pod``) join the queue
    first, in the given order. ``seed`` fixes generated names and UIDs; ``now`` (default:
    the current time) is the CronJobs' schedule time and the start time of placed pods.
    The cluster is changed as the pods are placed.
    """
    at = time.time() if now is None else now
    groups = [(f"Pod/{p.key}", [p], False) for p in extra_pods]
    refusals: list[tuple[str, str]] = []
    adopted: list[tuple[str, list[str]]] = []
    groups += [(key, pods, ordered) for key, pods, ordered, _ in
               expand_documents(cluster, docs, seed=seed, now=at, refusals=refusals,
                                adopted=adopted)]
    result = place(cluster, groups, preemption=preemption, explain=explain, now=at)
    result.rejected_objects = refusals
    result.adopted = adopted
    return result
