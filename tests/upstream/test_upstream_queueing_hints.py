"""Queueing hints, ported from upstream's hint test tables.

Each table is the node-add / assigned-pod add and delete cases (the events the simulator
produces) of one upstream test, with upstream's expected Queue / QueueSkip; each test
names the upstream function the answer comes from and the one-character mutation of the
rule that it was seen to fail on (applied by hand, test run, restored).
"""

from __future__ import annotations

from typing import Any

import pytest
from upstream_harness import up_node, up_pod

from kubepreempt.api.errors import Source
from kubepreempt.api.objects import Node, Pod, parse_node, parse_pod
from kubepreempt.api.priority import PriorityResolver
from kubepreempt.scheduler.queue.events import NODE_ADD, POD_ADD, POD_DELETE, ClusterEvent
from kubepreempt.scheduler.queue.hints import cross_topology, worth_requeuing

_SOURCE = Source("hints", 0, 1)
_RESOLVE = PriorityResolver([]).resolve
QUEUE, SKIP = True, False


def _pod(manifest: dict[str, Any]) -> Pod:
    return parse_pod(manifest, _SOURCE, _RESOLVE)


def _node(manifest: dict[str, Any]) -> Node:
    return parse_node(manifest, _SOURCE)


def _ns_labels(labels: dict[str, dict[str, str]]):
    return lambda ns: labels.get(ns, {})


_NO_NS = _ns_labels({})


def _requests(**req: str) -> list[dict]:
    """One container requesting ``req`` (``newResourcePod``)."""
    return [{"name": "c", "image": "pause", "resources": {"requests": dict(req)}}]


def _capacity(**alloc: str) -> dict[str, Any]:
    """``st.MakeNode().Capacity(alloc)``: allocatable ``alloc`` plus ``pods: 32``."""
    return up_node("n", alloc={"pods": "32", **alloc})


def _hint(plugin: str, pod: Pod, ev: ClusterEvent, ns=_NO_NS) -> bool:
    return worth_requeuing(pod, frozenset({plugin}), ev, ns)


# ---- NodeResourcesFit ------------------------------------------------------------------

EXT_A, EXT_B = "example.com/aaa", "example.com/bbb"

FIT_NODE_ADD = [
    # fit_test.go Test_isSchedulableAfterNodeChange (node add cases)
    ("skip-queue-on-node-add-without-sufficient-resources",
     {"memory": "2"}, {"memory": "1"}, SKIP),
    ("skip-queue-on-node-add-without-required-resource-type",
     {EXT_A: "1"}, {EXT_B: "1"}, SKIP),
    ("queue-on-node-add-with-sufficient-resources",
     {"memory": "2", EXT_A: "1"}, {"memory": "4", EXT_A: "2"}, QUEUE),
    # isFit -> fitsRequest on an empty NodeInfo: a request is insufficient only when it
    # is *greater* than allocatable, and the pod-count check (len(pods)+1 > allowed)
    # comes first, for a pod with no requests too.
    ("node with room for the pod", {"cpu": "2"}, {"cpu": "4"}, QUEUE),
    ("request equal to allocatable fits", {"cpu": "2", "memory": "1Gi"},
     {"cpu": "2", "memory": "1Gi"}, QUEUE),
    ("cpu one millicore short", {"cpu": "2001m"}, {"cpu": "2"}, SKIP),
    ("pods: 0 allocatable", {"cpu": "1"}, {"cpu": "4", "pods": "0"}, SKIP),
    ("pods: 1 allocatable is room for one pod", {"cpu": "1"}, {"cpu": "4", "pods": "1"},
     QUEUE),
    ("no requests, pods: 0", {}, {"cpu": "4", "pods": "0"}, SKIP),
    ("no requests, a pod slot", {}, {}, QUEUE),
]


@pytest.mark.parametrize(("requests", "alloc", "want"), [c[1:] for c in FIT_NODE_ADD],
                         ids=[c[0] for c in FIT_NODE_ADD])
def test_fit_node_add(requests, alloc, want) -> None:
    """``Fit.isSchedulableAfterNodeChange`` (``isFit`` on the new node).

    Kills: ``v <= alloc`` -> ``v < alloc`` (equal request), ``pods < 1`` -> ``pods < 2`` /
    ``<= 1`` (pods: 1), ``< 1`` -> ``< 0`` (pods: 0), the missing-resource default 0 -> 1
    (resource type the node lacks)."""
    pod = _pod(up_pod("p", containers=_requests(**requests)))
    ev = ClusterEvent(NODE_ADD, node=_node(_capacity(**alloc)))
    assert _hint("NodeResourcesFit", pod, ev) is want


def test_fit_assigned_pod_delete_queues() -> None:
    """``Fit.isSchedulableAfterPodEvent``: "queue-on-other-pod-deleted" (an assigned pod's
    deletion frees resources). Kills ``return True`` -> ``return False``."""
    pod = _pod(up_pod("pod1", containers=_requests(cpu="1")))
    other = _pod(up_pod("pod2", node="fake", containers=_requests(cpu="1")))
    assert _hint("NodeResourcesFit", pod, ClusterEvent(POD_DELETE, pod=other)) is QUEUE


# ---- NodeUnschedulable -----------------------------------------------------------------

TOLERATES_UNSCHEDULABLE = [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists",
                            "effect": "NoSchedule"}]

UNSCHEDULABLE_NODE_ADD = [
    # node_unschedulable_test.go TestIsSchedulableAfterNodeChange (node add cases)
    ("skip-queue-on-unschedulable-node-added", None, True, SKIP),
    ("queue-on-schedulable-node-added", None, False, QUEUE),
    # isSchedulableAfterNodeChange reads only modifiedNode.Spec.Unschedulable on an add:
    # the pod's tolerations do not enter (a tolerating pod is never rejected by the
    # plugin; a toleration added later is the UpdatePodToleration event).
    ("unschedulable node added, pod tolerates the taint", TOLERATES_UNSCHEDULABLE, True,
     SKIP),
    ("schedulable node added, pod tolerates the taint", TOLERATES_UNSCHEDULABLE, False,
     QUEUE),
]


@pytest.mark.parametrize(("tolerations", "cordoned", "want"),
                         [c[1:] for c in UNSCHEDULABLE_NODE_ADD],
                         ids=[c[0] for c in UNSCHEDULABLE_NODE_ADD])
def test_node_unschedulable_node_add(tolerations, cordoned, want) -> None:
    """``NodeUnschedulable.isSchedulableAfterNodeChange``: Queue iff the added node is
    schedulable. Kills ``not ev.node.unschedulable`` -> ``ev.node.unschedulable`` and the
    former ``or tolerates_all(...)`` clause (the tolerating case)."""
    pod = _pod(up_pod("p", spec={"tolerations": tolerations} if tolerations else None))
    ev = ClusterEvent(NODE_ADD, node=_node(up_node("n", unschedulable=cordoned)))
    assert _hint("NodeUnschedulable", pod, ev) is want


# ---- NodePorts -------------------------------------------------------------------------

def _with_port(port: int) -> list[dict]:
    return [{"name": "c", "image": "pause",
             "ports": [{"containerPort": port, "hostPort": port, "protocol": "TCP"}]}]


@pytest.mark.parametrize("containers", [_with_port(8080), None], ids=["host port", "none"])
def test_node_ports_node_add_always_queues(containers) -> None:
    """NodePorts registers Node Add / Update without a hint function: the framework's
    default hint is Queue (``EventsToRegister`` in node_ports.go). Kills ``_always``
    ``return True`` -> ``return False``."""
    pod = _pod(up_pod("p", containers=containers))
    node = _node(up_node("n", {"kubernetes.io/hostname": "n"}))
    assert _hint("NodePorts", pod, ClusterEvent(NODE_ADD, node=node)) is QUEUE


NODE_PORTS_DELETE = [
    # node_ports_test.go Test_isSchedulableAfterPodDeleted (assigned pods)
    ("skip-queue-on-non-hostport", None, SKIP),
    ("skip-queue-on-unrelated-hostport", _with_port(8081), SKIP),
    ("queue-on-released-hostport", _with_port(8080), QUEUE),
]


@pytest.mark.parametrize(("containers", "want"), [c[1:] for c in NODE_PORTS_DELETE],
                         ids=[c[0] for c in NODE_PORTS_DELETE])
def test_node_ports_pod_deleted(containers, want) -> None:
    """``NodePorts.isSchedulableAfterPodDeleted``. Kills ``and`` -> ``or`` (unrelated
    port) and ``bool(...)`` -> ``not``."""
    pod = _pod(up_pod("p", containers=_with_port(8080)))
    other = _pod(up_pod("o", node="fake", containers=containers))
    assert _hint("NodePorts", pod, ClusterEvent(POD_DELETE, pod=other)) is want


# ---- InterPodAffinity ------------------------------------------------------------------

def _term(key: str, op: str, values: list[str] | None, topology: str,
          **extra: Any) -> dict[str, Any]:
    expr: dict[str, Any] = {"key": key, "operator": op}
    if values is not None:
        expr["values"] = values
    return {"labelSelector": {"matchExpressions": [expr]}, "topologyKey": topology, **extra}


def _affinity(required=(), anti=()) -> dict[str, Any]:
    aff: dict[str, Any] = {}
    if required:
        aff["podAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": list(required)}
    if anti:
        aff["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": list(anti)}
    return {"affinity": aff}


SECURITYSCAN = _term("service", "In", ["securityscan", "value2"], "region")
ZONE_AFFINITY = _term("service", "In", ["securityscan", "value2"], "zone")
ZONE_ANTI = {"labelSelector": {"matchLabels": {"another": "label"}}, "topologyKey": "zone"}
EXISTS_AAA = _term("aaa", "Exists", None, "hostname")
EXISTS_BBB = _term("bbb", "Exists", None, "hostname")

IPA_POD_ADD = [
    # interpodaffinity plugin_test.go Test_isSchedulableAfterPodChange (add cases)
    ("add a pod which matches the pod affinity", _affinity([SECURITYSCAN]),
     {"service": "securityscan"}, QUEUE),
    ("add a pod which doesn't match the pod affinity", _affinity([SECURITYSCAN]),
     {"aaa": "a"}, SKIP),
    # podMatchesAllAffinityTerms: one pod must match every required affinity term (the
    # "multiple terms" update cases, as adds)
    ("add a pod matching both affinity terms", _affinity([EXISTS_AAA, EXISTS_BBB]),
     {"aaa": "", "bbb": ""}, QUEUE),
    ("add a pod matching one of two affinity terms", _affinity([EXISTS_AAA, EXISTS_BBB]),
     {"aaa": "a"}, SKIP),
    ("add a pod matching the anti-affinity only", _affinity(anti=[SECURITYSCAN]),
     {"service": "securityscan"}, SKIP),
]


@pytest.mark.parametrize(("spec", "labels", "want"), [c[1:] for c in IPA_POD_ADD],
                         ids=[c[0] for c in IPA_POD_ADD])
def test_inter_pod_affinity_pod_added(spec, labels, want) -> None:
    """``InterPodAffinity.isSchedulableAfterPodChange`` for an added assigned pod. Kills
    ``all`` -> ``any`` (one of two terms), ``pod_required`` -> ``anti_required``."""
    pod = _pod(up_pod("p", spec=spec))
    added = _pod(up_pod("other", labels, node="fake-node"))
    assert _hint("InterPodAffinity", pod, ClusterEvent(POD_ADD, pod=added)) is want


IPA_POD_DELETE = [
    # interpodaffinity plugin_test.go Test_isSchedulableAfterPodChange (delete cases)
    ("delete a pod which doesn't match pod's anti-affinity",
     ({"service": "x"}, _affinity(anti=[SECURITYSCAN])), ({"aaa": "a"}, None), SKIP),
    ("delete a pod which matches pod's anti-affinity",
     ({}, _affinity(anti=[SECURITYSCAN])), ({"service": "securityscan"}, None), QUEUE),
    ("delete a pod with anti-affinity that matches pending pod",
     ({"service": "securityscan"}, None), ({}, _affinity(anti=[SECURITYSCAN])), QUEUE),
    ("delete a pod with anti-affinity that doesn't match pending pod",
     ({"service": "foo"}, None), ({}, _affinity(anti=[SECURITYSCAN])), SKIP),
    ("delete a pod which doesn't match pending pod's anti-affinity and has anti-affinity "
     "that doesn't match pending pod",
     ({"service": "foo"}, _affinity(anti=[SECURITYSCAN])),
     ({"service": "foo"}, _affinity(anti=[SECURITYSCAN])), SKIP),
    # the deleted pod matching the pending pod's *affinity* frees nothing
    ("delete a pod matching the pending pod's affinity",
     ({}, _affinity([SECURITYSCAN])), ({"service": "securityscan"}, None), SKIP),
]


@pytest.mark.parametrize(("pending", "deleted", "want"), [c[1:] for c in IPA_POD_DELETE],
                         ids=[c[0] for c in IPA_POD_DELETE])
def test_inter_pod_affinity_pod_deleted(pending, deleted, want) -> None:
    """``InterPodAffinity.isSchedulableAfterPodChange`` for a deleted assigned pod: Queue
    when it matched the pending pod's anti-affinity, or its own anti-affinity matched the
    pending pod (kubernetes#135325). Kills ``anti_required`` -> ``pod_required`` on either
    side, ``_hint_matches_all`` -> ``not``, ``if ...: return True`` -> ``return False``."""
    pod = _pod(up_pod("p", pending[0], spec=pending[1]))
    gone = _pod(up_pod("other", deleted[0], node="fake-node", spec=deleted[1]))
    assert _hint("InterPodAffinity", pod, ClusterEvent(POD_DELETE, pod=gone)) is want


def test_inter_pod_affinity_hints_match_namespace_selectors_without_labels() -> None:
    """The hints call ``podMatchesAllAffinityTerms`` (``t.Matches(pod, nil)``) on terms
    whose namespaceSelector is not merged into their namespaces: a non-empty selector
    sees no labels and matches no pod, an empty one (``{}``) every namespace
    (kubernetes#141954 is open to change this). Kills passing ``ns`` through."""
    selected = _term("service", "In", ["web"], "zone",
                     namespaceSelector={"matchLabels": {"team": "a"}})
    every_ns = _term("service", "In", ["web"], "zone", namespaceSelector={})
    ns = _ns_labels({"other": {"team": "a"}})
    added = _pod(up_pod("w", {"service": "web"}, node="n", ns="other"))
    ev = ClusterEvent(POD_ADD, pod=added)
    assert _hint("InterPodAffinity", _pod(up_pod("p", spec=_affinity([selected]))), ev,
                 ns) is SKIP
    assert _hint("InterPodAffinity", _pod(up_pod("p", spec=_affinity([every_ns]))), ev,
                 ns) is QUEUE


IPA_NODE_ADD = [
    # interpodaffinity plugin_test.go Test_isSchedulableAfterNodeChange (add cases)
    ("add a new node with matched pod affinity topologyKey", _affinity([ZONE_AFFINITY]),
     {"zone": "zone1"}, QUEUE),
    ("add a new node without matched topologyKey", _affinity([SECURITYSCAN]),
     {"zone": "zone1"}, SKIP),
    ("add a new node with matched pod anti-affinity topologyKey", _affinity(anti=[ZONE_ANTI]),
     {"zone": "zone1"}, QUEUE),
    ("add a new node without matched pod anti-affinity topologyKey",
     _affinity(anti=[ZONE_ANTI]), {}, QUEUE),
    ("pod without pod (anti-)affinity", None, {"zone": "zone1"}, SKIP),
]


@pytest.mark.parametrize(("spec", "labels", "want"), [c[1:] for c in IPA_NODE_ADD],
                         ids=[c[0] for c in IPA_NODE_ADD])
def test_inter_pod_affinity_node_added(spec, labels, want) -> None:
    """``InterPodAffinity.isSchedulableAfterNodeChange`` on an add: the node has an
    affinity term's topology key, or the pod has any anti-affinity term. Kills
    ``or bool(anti)`` -> ``and`` and ``in labels`` -> ``not in``."""
    pod = _pod(up_pod("p", spec=spec))
    node = _node(up_node("node-a", labels))
    assert _hint("InterPodAffinity", pod, ClusterEvent(NODE_ADD, node=node)) is want


# ---- PodTopologySpread -----------------------------------------------------------------

def _spread(*constraints: tuple[str, str, str]) -> dict[str, Any]:
    return {"topologySpreadConstraints": [
        {"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": when,
         "labelSelector": {"matchExpressions": [{"key": label, "operator": "Exists"}]}}
        for key, when, label in constraints]}


FOO_ZONE = ("zone", "DoNotSchedule", "foo")
BAR_NODE = ("node", "DoNotSchedule", "bar")

PTS_POD_EVENTS = [
    # podtopologyspread plugin_test.go Test_isSchedulableAfterPodChange (add / delete)
    ("add pod with labels match topologySpreadConstraints selector", POD_ADD,
     _spread(FOO_ZONE), "default", {"foo": ""}, QUEUE),
    ("add pod with different namespace", POD_ADD, _spread(FOO_ZONE), "fake-namespace",
     {"foo": ""}, SKIP),
    ("add pod with labels don't match topologySpreadConstraints selector", POD_ADD,
     _spread(FOO_ZONE), "default", {"bar": ""}, SKIP),
    ("delete pod with labels that match topologySpreadConstraints selector", POD_DELETE,
     _spread(FOO_ZONE), "default", {"foo": ""}, QUEUE),
    ("delete pod with labels that don't match topologySpreadConstraints selector",
     POD_DELETE, _spread(FOO_ZONE), "default", {"bar": ""}, SKIP),
    ("delete pod with different namespace", POD_DELETE, _spread(FOO_ZONE), "fake-namespace",
     {"foo": ""}, SKIP),
    ("add pod matching the second of two constraints", POD_ADD,
     _spread(FOO_ZONE, BAR_NODE), "default", {"bar": ""}, QUEUE),
    # getConstraints keeps only DoNotSchedule constraints for the hints
    ("add pod matching a ScheduleAnyway constraint only", POD_ADD,
     _spread(("zone", "ScheduleAnyway", "foo")), "default", {"foo": ""}, SKIP),
]


@pytest.mark.parametrize(("kind", "spec", "ns", "labels", "want"),
                         [c[1:] for c in PTS_POD_EVENTS], ids=[c[0] for c in PTS_POD_EVENTS])
def test_pod_topology_spread_pod_events(kind, spec, ns, labels, want) -> None:
    """``PodTopologySpread.isSchedulableAfterPodChange``: only an assigned pod in the
    pending pod's namespace (``involvedInTopologySpreading``) whose labels match a hard
    constraint's selector. Kills ``!=`` -> ``==`` (namespace), ``any`` -> ``all`` (second
    constraint), ``== DO_NOT_SCHEDULE`` -> ``!=``."""
    pod = _pod(up_pod("p", {"foo": ""}, spec=spec))
    other = _pod(up_pod("p2", labels, node="fake-node", ns=ns))
    assert _hint("PodTopologySpread", pod, ClusterEvent(kind, pod=other)) is want


# ---- the queue's own rules (scheduler/queue/hints.py) ----------------------------------

def test_a_pod_no_plugin_rejected_is_always_requeued() -> None:
    """``isPodWorthRequeuing``: with no UnschedulablePlugins (the attempt failed with an
    error) every event queues, even one no plugin registered. Kills ``not rejectors`` ->
    ``rejectors`` and ``or`` -> ``and``."""
    pod = _pod(up_pod("p"))
    cordoned = _node(up_node("n", unschedulable=True))
    for ev in (ClusterEvent(NODE_ADD, node=cordoned),
               ClusterEvent(POD_DELETE, pod=_pod(up_pod("o", node="n")))):
        assert worth_requeuing(pod, frozenset(), ev, _NO_NS)
    # The same event with a rejecting plugin whose hint says Skip does not queue.
    assert not worth_requeuing(pod, frozenset({"NodeUnschedulable"}),
                               ClusterEvent(NODE_ADD, node=cordoned), _NO_NS)


def test_any_rejecting_plugin_saying_queue_requeues() -> None:
    """``isPodWorthRequeuing`` returns Queue as soon as one rejector's hint does; a
    rejector without a hint for the event does not veto. Kills ``return True`` ->
    ``return False`` inside the loop and ``continue`` -> ``break``."""
    pod = _pod(up_pod("p"))
    node = _node(up_node("n", unschedulable=True))
    ev = ClusterEvent(NODE_ADD, node=node)
    # Several sets, so that some iterate the hint-less name first whatever the hash seed.
    for rejectors in ({"NodeUnschedulable", "NodePorts"}, {"NodeName", "NodePorts"},
                      *({f"NoSuchPlugin{i}", "NodePorts"} for i in range(8))):
        assert worth_requeuing(pod, frozenset(rejectors), ev, _NO_NS), rejectors


CROSS_TOPOLOGY = [
    # scheduling_queue.go getUnschedulablePodsWithCrossTopologyTerm
    ("PodTopologySpread rejector, same namespace", {"PodTopologySpread"}, None, "default",
     QUEUE),
    ("PodTopologySpread rejector, other namespace", {"PodTopologySpread"}, None, "other",
     SKIP),
    ("other rejector, same namespace", {"NodeResourcesFit"}, None, "default", SKIP),
    ("required affinity term matching the added pod", {"InterPodAffinity"},
     _affinity([_term("app", "In", ["web"], "zone", namespaces=["other"])]), "other", QUEUE),
    ("required anti-affinity term only", {"InterPodAffinity"},
     _affinity(anti=[_term("app", "In", ["web"], "zone")]), "default", SKIP),
]


@pytest.mark.parametrize(("rejectors", "spec", "added_ns", "want"),
                         [c[1:] for c in CROSS_TOPOLOGY], ids=[c[0] for c in CROSS_TOPOLOGY])
def test_cross_topology_precheck(rejectors, spec, added_ns, want) -> None:
    """The AssignedPodAdd pre-check: a pod rejected by PodTopologySpread moves only for a
    pod added in its own namespace; otherwise only a required affinity term matching
    the added pod. Kills ``==`` -> ``!=`` (namespace), ``and`` -> ``or``,
    ``pod_required`` -> ``anti_required``."""
    pod = _pod(up_pod("p", spec=spec))
    added = _pod(up_pod("w", {"app": "web"}, node="n", ns=added_ns))
    assert cross_topology(pod, frozenset(rejectors), added, _NO_NS) is want


def test_cross_topology_matches_namespace_selectors_with_the_added_pods_labels() -> None:
    """Unlike the hints, the pre-check matches a term's namespaceSelector against the
    added pod's namespace labels (``GetNamespaceLabelsSnapshot``)."""
    term = _term("app", "In", ["web"], "zone", namespaceSelector={"matchLabels": {"t": "a"}})
    pod = _pod(up_pod("p", spec=_affinity([term])))
    added = _pod(up_pod("w", {"app": "web"}, node="n", ns="other"))
    rejected = frozenset({"InterPodAffinity"})
    assert cross_topology(pod, rejected, added, _ns_labels({"other": {"t": "a"}}))
    assert not cross_topology(pod, rejected, added, _ns_labels({"other": {"t": "b"}}))
