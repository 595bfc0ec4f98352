"""The watch loop's brain: keep a snapshot current from events, predict what the scheduler
does with each pending pod, and compare with what it then does.

One thread applies events in order (:meth:`Watcher.handle`); the cluster snapshot is
updated in place for pod changes and rebuilt from the stored objects after any other
change. Memory holds the cluster's current objects plus one entry per pending pod, so it
stays flat however long the watch runs.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from kubepreempt.api.errors import InputError, Source
from kubepreempt.api.objects import parse_pod
from kubepreempt.cluster import Cluster
from kubepreempt.decide import PREEMPT, SCHEDULED, UNSCHEDULABLE, Decision, schedule
from kubepreempt.live.reflector import Event
from kubepreempt.live.resources import FILE_ONLY_KINDS
from kubepreempt.loader import build_with_warnings
from kubepreempt.manifests import Documents, RawObject
from kubepreempt.scheduler.preemption import TIE_BREAKS, Candidate

DEFAULT_SCHEDULER = "default-scheduler"
SOURCE = Source("watch")
MAX_DIFFERENCES = 100  # differences kept for the report (the tally counts all)
MAX_RECENT_VICTIMS = 1000
PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"  # v1.PodReasonPreemptionByScheduler


@dataclass(slots=True)
class Prediction:
    """What kubepreempt expects the scheduler to do with one pending pod."""

    pod: str
    result: str
    node: str | None
    victims: list[str]
    message: str
    compared: bool = False
    victims_deleted: set[str] = field(default_factory=set)
    # For ``preempt``: victims on ``node`` and on every node that ties with it on each
    # criterion upstream compares (upstream's pick among those is not ours to predict).
    candidates: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def tied(self) -> frozenset[str]:
        """Other nodes as good as ``node``."""
        return frozenset(self.candidates) - {self.node}

    @property
    def signature(self) -> tuple:
        """Equal signatures: nothing new to say about the pod."""
        return (self.result, self.node, tuple(self.victims), self.message)

    def to_json(self) -> dict[str, Any]:
        """The prediction's JSON keys."""
        out: dict[str, Any] = {"result": self.result, "node": self.node,
                               "victims": self.victims}
        if self.message:
            out["message"] = self.message
        return out


@dataclass(slots=True)
class Nomination:
    """A pod the scheduler nominated: the victims expected there, the victims seen."""

    node: str
    expected: tuple[str, ...] | None  # None: no prediction preempted on this node
    actual: set[str] = field(default_factory=set)
    agreed: bool = False  # the nomination's verdict, as the tally counted it
    tie: bool = False
    # A re-list found pods on the node gone while the watch was away: whether the scheduler
    # marked them is unknown, so the victims cannot be compared.
    gap: bool = False


@dataclass(slots=True)
class Tally:
    """The running fidelity log: predictions and how many the scheduler agreed with."""

    predictions: int = 0
    agree: int = 0
    agree_by_tie: int = 0
    differ: int = 0
    by_action: dict[str, dict[str, int]] = field(default_factory=dict)
    differences: deque = field(default_factory=lambda: deque(maxlen=MAX_DIFFERENCES))

    def record(self, action: str, agree: bool, line: dict[str, Any], tie: bool = False) -> None:
        """Count one comparison (``tie``: agreed on another equally good node)."""
        counts = self.by_action.setdefault(action, {"agree": 0, "differ": 0})
        self.agree_by_tie += tie
        if agree:
            self.agree += 1
            counts["agree"] += 1
        else:
            self.differ += 1
            counts["differ"] += 1
            self.differences.append(line)

    def victims(self, line: dict[str, Any], nomination: Nomination) -> None:
        """Count a preemption's victims verdict. It is part of the decision its nomination
        already counted: victims that differ turn an agreeing decision into a differing one
        (one scheduling decision, one comparison)."""
        counts = self.by_action.setdefault("victims", {"agree": 0, "differ": 0})
        if line["agree"]:
            counts["agree"] += 1
            return
        counts["differ"] += 1
        self.differences.append(line)
        if nomination.agreed:
            self.agree -= 1
            self.agree_by_tie -= nomination.tie
            self.differ += 1

    def to_json(self) -> dict[str, Any]:
        """The ``--report`` file's content."""
        compared = self.agree + self.differ
        return {"predictions": self.predictions, "compared": compared, "agree": self.agree,
                "agreeByTie": self.agree_by_tie, "differ": self.differ,
                "agreement": round(self.agree / compared, 4) if compared else None,
                "byAction": self.by_action, "differences": list(self.differences)}


def _key(obj: dict[str, Any]) -> tuple[str, str]:
    meta = obj.get("metadata") or {}
    return str(meta.get("namespace") or ""), str(meta.get("name") or "")


def _pod_key(obj: dict[str, Any]) -> str:
    ns, name = _key(obj)
    return f"{ns or 'default'}/{name}"


def _resource_version(obj: dict[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("resourceVersion") or "")


def _pending(obj: dict[str, Any]) -> bool:
    """Waits for the default scheduler: unbound, not finished, not being deleted."""
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    return (not spec.get("nodeName") and status.get("phase") not in ("Succeeded", "Failed")
            and not (obj.get("metadata") or {}).get("deletionTimestamp")
            and (spec.get("schedulerName") or DEFAULT_SCHEDULER) == DEFAULT_SCHEDULER)


def _node_signature(obj: dict[str, Any]) -> tuple:
    """What the scheduler reads from a node. Kubelets rewrite ``status.conditions`` every
    few minutes on each node; rebuilding the snapshot for those would be all it did."""
    meta = obj.get("metadata") or {}
    status = obj.get("status") or {}
    return (meta.get("labels"), meta.get("annotations"), obj.get("spec"),
            status.get("allocatable"), status.get("capacity"), status.get("images"))


def _preempted(obj: dict[str, Any]) -> bool:
    """Marked by the scheduler as a preemption victim: condition DisruptionTarget=True with
    reason PreemptionByScheduler, patched onto each victim before it is deleted."""
    return any(c.get("type") == "DisruptionTarget" and c.get("status") == "True"
               and c.get("reason") == PREEMPTION_BY_SCHEDULER
               for c in (obj.get("status") or {}).get("conditions") or [])


def _unschedulable_message(obj: dict[str, Any]) -> str | None:
    for cond in (obj.get("status") or {}).get("conditions") or []:
        if (cond.get("type") == "PodScheduled" and cond.get("status") == "False"
                and cond.get("reason") == "Unschedulable"):
            return str(cond.get("message") or "")
    return None


class Watcher:
    """Applies events and writes prediction and comparison lines to ``emit``."""

    def __init__(self, kinds: Iterable[str], emit: Callable[[dict[str, Any]], None],
                 namespace: str | None = None, scheduler_config: Any = None) -> None:
        # Only API kinds are watched (file-only kinds such as KubeSchedulerConfiguration
        # never arrive from a cluster).
        self.store: dict[str, dict[tuple[str, str], dict[str, Any]]] = {
            k: {} for k in kinds if k not in FILE_ONLY_KINDS}
        self.synced: set[str] = set()
        self.emit = emit
        self.namespace = namespace
        # --scheduler-config: the cluster's own KubeSchedulerConfiguration (never listed).
        self.scheduler_config = scheduler_config
        self.tally = Tally()
        self.predictions: dict[str, Prediction] = {}
        self.nominations: dict[str, Nomination] = {}
        # (node, victim) marked and not yet taken by a nomination to that node (bounded).
        self.marked_victims: deque[tuple[str, str]] = deque(maxlen=MAX_RECENT_VICTIMS)
        # Nodes that lost pods during a re-list's gap: their next nomination's victims may
        # have been marked unseen.
        self.unsure_nodes: set[str] = set()
        self._cluster: Cluster | None = None
        self._stale = True  # pending pods need re-evaluating (their situation may have changed)
        self._build_error: str | None = None

    # ---- snapshot ---------------------------------------------------------------------
    @property
    def ready(self) -> bool:
        """Every kind has been listed once."""
        return self.synced >= set(self.store)

    def cluster(self) -> Cluster:
        """The snapshot of the stored objects (rebuilt only after non-pod changes)."""
        if self._cluster is None:
            self._cluster = self._build()
        return self._cluster

    def _usable_cluster(self) -> Cluster | None:
        """The snapshot, or None (said once per distinct problem) while an object the
        scheduler reads is invalid; a later change that fixes it rebuilds."""
        try:
            cluster = self.cluster()
        except InputError as exc:
            message = str(exc)
            if message != self._build_error:
                self._build_error = message
                self.emit({"event": "error", "pod": None, "message": message})
            return None
        self._build_error = None
        return cluster

    def _build(self) -> Cluster:
        docs = Documents()
        nodes = {name for _, name in self.store.get("Node", {})}
        for kind, objs in self.store.items():
            for obj in objs.values():
                if kind == "Pod" and (obj.get("spec") or {}).get("nodeName") not in (None, "",
                                                                                     *nodes):
                    continue  # its node was deleted; the pod's deletion event follows
                docs.add(RawObject(kind, obj, SOURCE, True))  # served by the apiserver
        # Not printed: the snapshot is rebuilt as objects change; they would repeat.
        cluster, _warnings = build_with_warnings(docs)
        if self.scheduler_config is not None:
            cluster.scheduler_config = self.scheduler_config
        return cluster

    def _pod_changed(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        """Update the snapshot in place for one pod (rebuild later if that fails)."""
        cluster = self._cluster
        if cluster is None:
            return
        try:
            if old is not None:
                key = _pod_key(old)
                bound = cluster.pods.get(key)
                if bound is not None:
                    cluster.remove(bound)
                elif cluster.pending.pop(key, None) is not None:
                    cluster.generation += 1
            if new is not None:
                pod = parse_pod(new, SOURCE, cluster.priority.resolve)
                if pod.phase in ("Succeeded", "Failed"):
                    return
                if pod.node_name:
                    cluster.bind(pod, pod.node_name)
                else:
                    cluster.add_pending(pod)
        except (InputError, KeyError):
            self._cluster = None

    # ---- events -----------------------------------------------------------------------
    def handle(self, event: Event) -> None:
        """Apply one event (SYNC, ADDED, MODIFIED, DELETED; the rest are the caller's)."""
        store = self.store.get(event.kind)
        if store is None:
            return
        if event.type == "SYNC":
            if event.kind == "Pod" and event.kind in self.synced:
                self._relist_pods(event.items)
                return
            store.clear()
            for obj in event.items:
                store[_key(obj)] = obj
            self.synced.add(event.kind)
            self._cluster = None
            self._stale = True
            return
        obj = event.obj
        if obj is None or event.type not in ("ADDED", "MODIFIED", "DELETED"):
            return
        self._apply(event.kind, event.type, obj)

    def _relist_pods(self, items: list[dict[str, Any]]) -> None:
        """A re-list after the watch was away (410 Gone), as a client-go informer sees it
        (DeltaFIFO.Replace): a pod missing from the list is deleted (its last known state,
        DeletedFinalStateUnknown), a pod whose resourceVersion moved is updated, a new one
        added. So a pod bound during the gap is still compared, and a prediction for a pod
        deleted during it is dropped."""
        store = self.store["Pod"]
        fresh = {_key(obj): obj for obj in items}
        # Pods gone from a node while the watch was away may have been preemption victims,
        # marked unseen: the victims of a nomination to that node cannot be compared.
        gone = {(old.get("spec") or {}).get("nodeName") for key, old in store.items()
                if key not in fresh} - {None, ""}
        for nom in self.nominations.values():
            nom.gap = nom.gap or nom.node in gone
        kept = [(n, v) for n, v in self.marked_victims if n not in gone]
        self.marked_victims.clear()
        self.marked_victims.extend(kept)
        self.unsure_nodes |= gone
        for key, old in list(store.items()):
            if key not in fresh:
                self._apply("Pod", "DELETED", old)
        for key, obj in fresh.items():
            old = store.get(key)
            if old is None:
                self._apply("Pod", "ADDED", obj)
            elif _resource_version(old) != _resource_version(obj) or not _resource_version(obj):
                self._apply("Pod", "MODIFIED", obj)

    def _apply(self, kind: str, etype: str, obj: dict[str, Any]) -> None:
        store = self.store[kind]
        key = _key(obj)
        old = store.get(key)
        if etype == "DELETED":
            if old is None:
                return  # never seen (client-go's store ignores it too)
            del store[key]
            new = None
        else:
            store[key] = obj
            new = obj
        if kind != "Pod":
            if kind == "Node" and old is not None and new is not None \
                    and _node_signature(old) == _node_signature(new):
                return  # a status heartbeat: nothing the scheduler reads changed
            self._cluster = None
            self._stale = True
            return
        self._pod_changed(old, new)
        if old is not None and (old.get("spec") or {}).get("nodeName") != (
                (new or {}).get("spec") or {}).get("nodeName"):
            self._stale = True  # a bound pod came or went: capacity changed
        elif new is None or (old is not None and not _pending(old)):
            self._stale = True
        self._observe(old, new)
        if new is not None and _pending(new) and self.ready and self._in_scope(new):
            self._predict(_pod_key(new))

    def settle(self) -> None:
        """Re-evaluate every pending pod after changes (call when the event queue is idle)."""
        if not self._stale or not self.ready:
            return
        self._stale = False
        cluster = self._usable_cluster()
        if cluster is None:
            return
        for key in list(cluster.pending):
            ns = key.partition("/")[0]
            obj = self.store["Pod"].get((ns, key.partition("/")[2]))
            if obj is not None and _pending(obj) and self._in_scope(obj):
                self._predict(key)

    def _in_scope(self, obj: dict[str, Any]) -> bool:
        return self.namespace is None or _key(obj)[0] == self.namespace

    # ---- predictions and comparisons ---------------------------------------------------
    def _predict(self, key: str) -> None:
        cluster = self._usable_cluster()
        if cluster is None:
            return
        try:
            d = schedule(cluster, key)
        except InputError as exc:
            self.emit({"event": "error", "pod": key, "message": str(exc)})
            return
        pred = Prediction(key, d.result, d.node, sorted(d.victims), d.message,
                          candidates=_equal_candidates(d))
        last = self.predictions.get(key)
        if last is not None and last.signature == pred.signature:
            return
        self.predictions[key] = pred
        self.tally.predictions += 1
        self.emit({"event": "prediction", "pod": key, **pred.to_json()})

    def _observe(self, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        """Compare what the scheduler just did to this pod with the prediction."""
        subject = new if new is not None else old
        if subject is None:
            return
        key = _pod_key(subject)
        if new is None or (new.get("metadata") or {}).get("deletionTimestamp"):
            for pred in self.predictions.values():
                if key in pred.victims:
                    pred.victims_deleted.add(key)
        if new is not None and _preempted(new) and not _preempted(old or {}):
            self._victim(key, str((new.get("spec") or {}).get("nodeName") or ""))
        nominated = ((new or {}).get("status") or {}).get("nominatedNodeName")
        nominated_now = bool(new is not None and nominated and _pending(new) and nominated != (
            (old or {}).get("status") or {}).get("nominatedNodeName"))
        # Any pod's nomination takes the victims marked on its node, in scope or not.
        marked = self._take_victims(nominated) if nominated_now else set()
        unsure = nominated_now and nominated in self.unsure_nodes
        if unsure:
            self.unsure_nodes.discard(nominated)
        done = None
        if new is None or not _pending(new):
            done = self._nomination_done(key)
        pred = self.predictions.get(key)
        if pred is None:
            return
        if new is None or not (_pending(new) or (new.get("spec") or {}).get("nodeName")):
            del self.predictions[key]  # deleted or finished before the scheduler acted
            return
        node = (new.get("spec") or {}).get("nodeName")
        if node:
            # Bound where it was nominated: the nomination (and its victims) was the
            # decision, already compared; a re-prediction since is not a second one.
            if done is None or done.node != node:
                self._compare(pred, "bound", node, pred.node == node)
            del self.predictions[key]
            return
        if nominated_now:
            agree = pred.result == PREEMPT and pred.node == nominated
            tie = pred.result == PREEMPT and nominated in pred.tied
            if self._compare(pred, "nominated", nominated, agree, tie=tie):
                expected = pred.candidates.get(nominated) if pred.result == PREEMPT else None
                self.nominations[key] = Nomination(nominated, expected, marked,
                                                   agreed=agree or tie, tie=tie and not agree,
                                                   gap=unsure)
            return
        message = _unschedulable_message(new)
        if message is not None and message != _unschedulable_message(old or {}):
            self._compare(pred, "unschedulable", None, pred.result == UNSCHEDULABLE,
                          message)

    def _victim(self, key: str, node: str) -> None:
        """The scheduler marked ``key`` for preemption (DisruptionTarget condition). Upstream
        marks a preemption's victims before it writes the preemptor's nominatedNodeName, so
        the marks wait for the next nomination to their node."""
        self.marked_victims.append((node, key))

    def _take_victims(self, node: str) -> set[str]:
        """The victims marked on ``node`` since its last nomination, consumed."""
        taken = {v for n, v in self.marked_victims if n == node}
        if taken:
            kept = [(n, v) for n, v in self.marked_victims if n != node]
            self.marked_victims.clear()
            self.marked_victims.extend(kept)
        return taken

    def _nomination_done(self, key: str) -> Nomination | None:
        """The nominated pod was bound or went away: compare the victims."""
        nom = self.nominations.pop(key, None)
        if nom is None or nom.expected is None or nom.gap:
            return nom
        line: dict[str, Any] = {"event": "actual", "pod": key, "action": "victims",
                                "node": nom.node, "victims": sorted(nom.actual),
                                "agree": set(nom.expected) == nom.actual,
                                "predicted": {"result": PREEMPT, "node": nom.node,
                                              "victims": list(nom.expected)}}
        self.tally.victims(line, nom)
        self.emit(line)
        return nom

    def _compare(self, pred: Prediction, action: str, node: str | None, agree: bool,
                 message: str | None = None, tie: bool = False) -> bool:
        """Count and say one comparison; False if this prediction was compared already."""
        if pred.compared:
            return False
        pred.compared = True
        line: dict[str, Any] = {"event": "actual", "pod": pred.pod, "action": action,
                                "node": node, "agree": agree or tie,
                                "predicted": pred.to_json()}
        if tie and not agree:
            # Upstream breaks a complete tie by the order its parallel search met the
            # candidates: another tied node is the same decision, not a different one.
            line["tie"] = True
        if pred.result == PREEMPT:
            line["victimsDeleted"] = sorted(pred.victims_deleted)
        if message is not None:
            line["message"] = message
            line["messageMatches"] = message == pred.message
        self.tally.record(action, agree or tie, line, tie and not agree)
        self.emit(line)
        return True


def _equal_candidates(d: Decision) -> dict[str, tuple[str, ...]]:
    """Victims on the chosen node and on the candidates equal to it on every criterion
    upstream compares."""
    pre = d.preemption
    if d.result != PREEMPT or pre is None or d.node is None:
        return {}
    chosen_victims = {d.node: tuple(sorted(d.victims))}
    if pre.decided_by != TIE_BREAKS[-1]:
        return chosen_victims

    now = time.time()  # upstream counts a victim without a start time as starting now

    def rank(c: Candidate) -> tuple:
        return (c.pdb_violations, c.highest_priority, c.priority_sum, len(c.victims),
                -c.earliest_start(now))

    chosen = [c for c in pre.candidates if c.node == d.node]
    if not chosen:
        return chosen_victims
    best = rank(chosen[0])
    return {**{c.node: tuple(sorted(p.key for p in c.victims)) for c in pre.candidates
               if rank(c) == best}, **chosen_victims}


def describe(line: dict[str, Any]) -> str:
    """One readable line for an emitted object."""
    pod = line.get("pod", "")
    if line["event"] == "prediction":
        return f"{pod}: will be {_outcome(line)}"
    if line["event"] == "actual":
        did = {"bound": f"bound to {line['node']}", "nominated": f"nominated to {line['node']}",
               "unschedulable": "marked unschedulable",
               "victims": f"preempted {', '.join(line.get('victims', [])) or 'nothing'} on "
                          f"{line['node']}"}[line["action"]]
        verdict = ("agrees (an equally good node)" if line.get("tie") else "agrees") \
            if line["agree"] else \
            f"DIFFERS (predicted {_outcome(line['predicted'])})"
        return f"{pod}: the scheduler {did}: {verdict}"
    if line["event"] == "error":
        return f"{pod}: error: {line['message']}" if pod else f"error: {line['message']}"
    return f"{line['event']}: {line.get('message', '')}"


def _outcome(p: dict[str, Any]) -> str:
    if p["result"] == SCHEDULED:
        return f"scheduled on {p['node']}"
    if p["result"] == PREEMPT:
        return f"nominated to {p['node']}, preempting {', '.join(p['victims'])}"
    return f"unschedulable: {p.get('message', '')}"
