"""The PriorityQueue's requeue rules, unit by unit (scheduler/queue/priority_queue.py).

1.36: ``AddUnschedulableIfNotPresent`` asks the hints about the events received while the
pod was in flight; ``AssignedPodAdded`` pre-checks cross-topology terms (real namespace
labels) before the hints; the leftover flush is the wildcard event. Classic (the design
doc's queue, upstream before queueing hints): any move request during an attempt
(``moveRequestCycle``) sends the failed pod to backoffQ; a bound pod moves only pods
with inter-pod terms or hard spread constraints. Each test names the mutation it kills.
"""

from __future__ import annotations

from typing import Any

from kubepreempt.api.errors import Source
from kubepreempt.api.objects import Node, Pod, parse_node, parse_pod
from kubepreempt.api.priority import PriorityResolver
from kubepreempt.scheduler.queue.events import NODE_ADD, POD_ADD, ClusterEvent
from kubepreempt.scheduler.queue.priority_queue import PriorityQueue
from kubepreempt.scheduler.queue.scheduling_queue import CLASSIC, UPSTREAM, leftover_tick

_SOURCE = Source("queue", 0, 1)
_RESOLVE = PriorityResolver([]).resolve
FIT = frozenset({"NodeResourcesFit"})


def _pod(name: str, labels: dict[str, str] | None = None, ns: str = "default",
         node: str | None = None, **spec: Any) -> Pod:
    body: dict[str, Any] = {"containers": [{"name": "c", "image": "pause", "resources": {
        "requests": {"cpu": "2"}}}], **spec}
    if node:
        body["nodeName"] = node
    return parse_pod({"apiVersion": "v1", "kind": "Pod", "spec": body, "metadata": {
        "name": name, "namespace": ns, "labels": labels or {}}}, _SOURCE, _RESOLVE)


def _node(cpu: str) -> Node:
    return parse_node({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{cpu}"},
                       "status": {"allocatable": {"cpu": cpu, "pods": "110"}}}, _SOURCE)


def _ns(labels: dict[str, dict[str, str]]):
    return lambda ns: labels.get(ns, {})


def _in_pool(pq: PriorityQueue, pod: Pod, t: float, rejectors=FIT):
    """``pod`` added, popped and failed at ``t`` with no event: in the pool."""
    pq.add(pod, t)
    q = pq.pop(t)
    assert q is not None and q.pod is pod
    q.rejectors = rejectors
    pq.requeue(q, t, version=1)
    pq.attempt_done()
    assert q.where == "unschedulable"
    return q


def test_an_event_with_a_queue_hint_during_the_attempt_requeues() -> None:
    """1.36 ``AddUnschedulableIfNotPresent``: a node the pod fits, added while it was in
    flight, sends it to backoffQ (expiry truncated to 1 s, released by the 2 s flush);
    a node it does not fit leaves it in the pool until the leftover flush. Kills the
    in-flight recording (``in_flight is None``, ``append(None)``, ``pop``'s ``q is None``)
    and every argument of the in-flight ``worth_requeuing`` call, and the leftover tick
    returned for a pod not in the pool."""
    for cpu, where in (("4", "backoff"), ("1", "unschedulable")):
        pq = PriorityQueue(UPSTREAM, _ns({}))
        pq.add(_pod("p"), 0.0)
        q = pq.pop(0.0)
        assert q is not None
        q.rejectors = FIT
        pq.on_event(ClusterEvent(NODE_ADD, node=_node(cpu)), 0.5)
        wake, leftover = pq.requeue(q, 0.5, version=1)
        assert q.where == where, cpu
        if where == "backoff":
            assert (wake, leftover) == (2.0, None)
        else:
            assert (wake, leftover) == (None, leftover_tick(0.5))


def test_a_pod_no_plugin_rejected_goes_to_the_error_backoffq() -> None:
    """No UnschedulablePlugins (an error): requeued whatever happened during the attempt,
    into podErrorBackoffQ. Kills ``not q.rejectors`` -> ``q.rejectors``."""
    pq = PriorityQueue(UPSTREAM, _ns({}))
    pq.add(_pod("p"), 0.0)
    q = pq.pop(0.0)
    assert q is not None
    q.rejectors = frozenset()
    pq.requeue(q, 0.5, version=1)
    assert q.where == "error"


def test_the_leftover_flush_during_an_attempt_is_a_wildcard_event() -> None:
    """The leftover flush moving a pool pod while another is in flight: the in-flight pod,
    failing, goes to backoffQ (the UnschedulableTimeout wildcard queues every pod), in
    1.36 and classic (a move request). A flush that moves nothing returns None and is no
    event. Kills ``wake is None`` -> ``is not None``, ``in_flight is not None`` -> ``is
    None``, ``_moved = True`` -> ``False``/``None``, the TIMEOUT event -> ``None`` /
    ``ClusterEvent(None)``."""
    for mode in (UPSTREAM, CLASSIC):
        pq = PriorityQueue(mode, _ns({}))
        stale = _in_pool(pq, _pod("stale"), 0.0)
        pq.add(_pod("p"), 400.0)
        q = pq.pop(400.0)
        assert q is not None and q.pod.name == "p"
        q.rejectors = FIT
        assert pq.flush_leftover_pods(400.0) is not None
        assert stale.where in ("active", "backoff")
        pq.requeue(q, 400.0, version=1)
        assert q.where == "backoff", mode
        # nothing stale: no move, no event
        assert pq.flush_leftover_pods(400.5) is None


def test_classic_a_move_request_during_the_attempt_sends_the_pod_to_backoffq() -> None:
    """Classic ``moveRequestCycle``: a node added while the pod was in flight sends it,
    failing, to backoffQ (even a node it does not fit: no hints); with no event it goes
    to the pool. Kills ``in_flight is not None`` -> ``is None``, ``_moved = True`` ->
    ``False``/``None`` in ``on_event`` and ``requeue = self._moved`` -> ``None``."""
    for event, where in ((True, "backoff"), (False, "unschedulable")):
        pq = PriorityQueue(CLASSIC, _ns({}))
        pq.add(_pod("p"), 0.0)
        q = pq.pop(0.0)
        assert q is not None
        q.rejectors = FIT
        if event:
            pq.on_event(ClusterEvent(NODE_ADD, node=_node("1")), 0.5)
        pq.requeue(q, 0.5, version=1)
        assert q.where == where, event


def _spread(when: str) -> dict[str, Any]:
    return {"topologySpreadConstraints": [{
        "maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": when,
        "labelSelector": {"matchLabels": {"app": "web"}}}]}


def test_classic_a_bound_pod_moves_only_pods_with_pod_terms_or_hard_spread() -> None:
    """Classic AssignedPodAdd: pods with inter-pod (anti-)affinity or a DoNotSchedule
    spread constraint move; a plain pod and a ScheduleAnyway-only pod stay. Kills the
    ``"DoNotSchedule"`` comparison in ``add`` (``!=`` and the string mutants) and
    ``only=`` dropped from ``move_all``."""
    pq = PriorityQueue(CLASSIC, _ns({}))
    affinity = {"affinity": {"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "zone"}]}}}
    queued = {name: _in_pool(pq, _pod(name, **spec), 0.0) for name, spec in (
        ("plain", {}), ("hard", _spread("DoNotSchedule")), ("soft", _spread("ScheduleAnyway")),
        ("anti", affinity))}
    pq.on_event(ClusterEvent(POD_ADD, pod=_pod("w", {"app": "web"}, node="n")), 1.0)
    moved = {name for name, q in queued.items() if q.where != "unschedulable"}
    assert moved == {"hard", "anti"}


def test_the_cross_topology_precheck_uses_namespace_labels_and_the_hints_do_not() -> None:
    """1.36 AssignedPodAdd: ``getUnschedulablePodsWithCrossTopologyTerm`` matches the
    term's namespaceSelector against the added pod's namespace labels, then the hint
    (``podMatchesAllAffinityTerms``, nil labels) must also say Queue. A ``team NotIn (a)``
    selector matches no labels, so the hint alone would queue a pod added in a ``team=a``
    namespace; the pre-check keeps it in the pool. In a ``team=b`` namespace both pass.
    Kills the queue's ``namespace_labels`` / ``ns`` -> ``None`` and ``and`` -> ``or``."""
    term = {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "zone",
            "namespaceSelector": {"matchExpressions": [
                {"key": "team", "operator": "NotIn", "values": ["a"]}]}}
    spec = {"affinity": {"podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [term]}}}
    for team, where in (("a", "unschedulable"), ("b", "backoff")):
        pq = PriorityQueue(UPSTREAM, _ns({"other": {"team": team}}))
        q = _in_pool(pq, _pod("p", **spec), 0.0, frozenset({"InterPodAffinity"}))
        pq.on_event(ClusterEvent(POD_ADD, pod=_pod("w", {"app": "web"}, "other", "n")), 0.5)
        assert q.where == where, team


def test_a_bind_passing_the_precheck_still_needs_a_queue_hint() -> None:
    """A PodTopologySpread-rejected pod passes the pre-check for any pod bound in its
    namespace, but its hint queues only a pod matching a hard constraint. Kills the
    rejectors of the AssignedPodAdd hint call -> ``None`` (no rejectors: always Queue)."""
    for labels, where in (({"app": "db"}, "unschedulable"), ({"app": "web"}, "backoff")):
        pq = PriorityQueue(UPSTREAM, _ns({}))
        q = _in_pool(pq, _pod("p", **_spread("DoNotSchedule")), 0.0,
                     frozenset({"PodTopologySpread"}))
        pq.on_event(ClusterEvent(POD_ADD, pod=_pod("w", labels, node="n")), 0.5)
        assert q.where == where, labels


def test_a_cleared_nomination_moves_the_pod_only_in_the_classic_queue() -> None:
    """Classic: the status update moves the pod (to activeQ once its backoff is over);
    1.36: UpdatePodOther matches no plugin's events, it stays in the pool. Kills the
    mode test and each argument of ``activate``."""
    for mode, where in ((CLASSIC, "active"), (UPSTREAM, "unschedulable")):
        pq = PriorityQueue(mode, _ns({}))
        q = _in_pool(pq, _pod("p"), 0.0)
        pq.nomination_cleared("default/p", 5.0)
        assert q.where == where, mode


def test_gates_removed_for_an_unknown_pod_is_a_no_op() -> None:
    """``gates_removed`` for a pod the queue does not hold returns None. Kills ``q is not
    None and ...`` -> ``or``."""
    pq = PriorityQueue(UPSTREAM, _ns({}))
    assert pq.gates_removed(_pod("ghost"), 0.0) is None
    gated = _pod("g", schedulingGates=[{"name": "wait"}])
    pq.add(gated, 0.0)
    assert pq.info["default/g"].where == "unschedulable"
    assert pq.gates_removed(_pod("g"), 1.0) is None
    assert pq.info["default/g"].where == "active"


def test_settled_only_when_nothing_is_in_flight_active_or_backing_off() -> None:
    """``settled``: an active pod or an attempt in flight is not settled (even on the
    same state version); classic: a pod in backoffQ is not. Kills ``or`` -> ``and``,
    ``return False`` -> ``True`` and classic ``not backoff_count and`` -> ``or``."""
    pq = PriorityQueue(UPSTREAM, _ns({}))
    pq.add(_pod("p"), 0.0)
    assert not pq.settled(0)
    q = pq.pop(0.0)
    assert q is not None
    q.failed_version = 1
    assert not pq.settled(1)  # in flight
    q.rejectors = FIT
    pq.requeue(q, 0.0, version=1)
    pq.attempt_done()
    assert pq.settled(1)
    classic = PriorityQueue(CLASSIC, _ns({}))
    classic.add(_pod("p"), 0.0)
    q = classic.pop(0.0)
    assert q is not None
    q.rejectors = FIT
    classic.on_event(ClusterEvent(NODE_ADD, node=_node("1")), 0.5)
    classic.requeue(q, 0.5, version=1)
    classic.attempt_done()
    assert q.where == "backoff" and not classic.settled(1)


def test_activeq_orders_equal_priorities_by_the_last_timestamp() -> None:
    """PrioritySort ``Less``: equal priorities by ``Timestamp``, which a failed attempt
    resets (``AddUnschedulableIfNotPresent``). A pod that failed at 0.5 and came back at
    the 2 s backoffQ flush pops before a pod added at 1.0. Kills ``super().add(pod,
    None)`` (a pod added without its timestamp)."""
    pq = PriorityQueue(UPSTREAM, _ns({}))
    pq.add(_pod("a"), 0.0)
    a = pq.pop(0.0)
    assert a is not None
    a.rejectors = FIT
    pq.on_event(ClusterEvent(NODE_ADD, node=_node("4")), 0.5)
    assert pq.requeue(a, 0.5, version=1)[0] == 2.0
    pq.attempt_done()
    pq.add(_pod("b"), 1.0)
    pq.flush_backoff(2.0)
    assert [pq.pop(2.0).pod.name, pq.pop(2.0).pod.name] == ["a", "b"]
