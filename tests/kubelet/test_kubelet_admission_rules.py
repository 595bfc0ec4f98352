"""Kubelet admission: the rules a one-line change breaks, and what ``kubelet-admit`` prints.

Worked from upstream ``pkg/kubelet/preemption/preemption.go`` (``smallerResourceRequest``:
memory first, then cpu, ``true`` on a full tie, so a later pod of equal distance and equal
requests replaces the earlier one in ``getPodsToPreemptByDistance``; the error
``preemption: error finding a set of pods to preempt: ...``), ``pkg/kubelet/kubelet.go``
``canAdmitPod`` (reason ``UnexpectedAdmissionError``, message ``Unexpected error while
attempting to recover from admission failure: <err>``), and
``pkg/kubelet/lifecycle/predicate.go`` ``generalFilter`` over
``noderesources.Fits`` (a pods check against the node's allocatable pods, none when the
node lists none; a resource the pod requests 0 of is never short) and the NodeName check.
"""

from __future__ import annotations

import pytest
from builders import cluster_of, node, pod
from kubelet_fixtures import make_node, make_pod

from kubepreempt.api.errors import InputError, Source
from kubepreempt.api.objects import Node, parse_node
from kubepreempt.kubelet.admission import (
    Requirement,
    admit,
    admit_pod,
    get_pods_to_preempt_by_distance,
)

CRIT = {"kubernetes.io/config.source": "file"}  # a static pod: critical


def _names(pods) -> list[str]:
    return [p.name for p in pods]


@pytest.mark.parametrize(("a", "b", "chosen"), [
    # Both meet the cpu requirement (distance 0). Memory decides before cpu: a asks
    # less memory, so b (more memory, less cpu) does not replace it ...
    ({"cpu": "2", "memory": "1Gi"}, {"cpu": "1", "memory": "2Gi"}, "a"),
    # ... and b, with less memory, does.
    ({"cpu": "1", "memory": "2Gi"}, {"cpu": "2", "memory": "1Gi"}, "b"),
    # Equal memory: the smaller cpu request wins; a larger one does not replace a.
    ({"cpu": "1", "memory": "1Gi"}, {"cpu": "2", "memory": "1Gi"}, "a"),
    # A full tie is "smaller" (true): the later pod replaces the earlier one.
    ({"cpu": "1", "memory": "1Gi"}, {"cpu": "1", "memory": "1Gi"}, "b"),
])
def test_equal_distance_goes_to_smaller_memory_then_cpu(a, b, chosen) -> None:
    pods = [make_pod("a", a), make_pod("b", b)]
    got = get_pods_to_preempt_by_distance(pods, (Requirement("cpu", 500),))
    assert _names(got) == [chosen]


def test_unrecoverable_shortfall_message() -> None:
    node = make_node(cpu="1")
    others = [make_pod("small", {"cpu": "300m"}),
              make_pod("crit", {"cpu": "400m"}, priority=2_000_000_000)]
    res = admit_pod(make_pod("s", {"cpu": "1"}, annotations=CRIT), node, others)
    assert (res.result, res.reason) == ("reject", "UnexpectedAdmissionError")
    assert res.message == (
        "Unexpected error while attempting to recover from admission failure: preemption: "
        "error finding a set of pods to preempt: no set of running pods found to reclaim "
        "resources: [(res: cpu, q: 400), ]")


def _node_without_pods_allocatable() -> Node:
    body = {"kind": "Node", "metadata": {"name": "n1", "labels": {}}, "spec": {},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi"}}}
    return parse_node(body, Source("test"))


def test_a_node_listing_no_pods_allocatable_admits_none() -> None:
    res = admit_pod(make_pod("p", {"cpu": "1"}), _node_without_pods_allocatable(), [])
    assert (res.result, res.reason, res.message) == (
        "reject", "OutOfpods",
        "Node didn't have enough resource: pods, requested: 1, used: 0, capacity: 0")


def test_a_zero_request_is_never_short() -> None:
    # The node's memory is over-committed by the pods already there (2Gi on 1Gi); the
    # pod asks cpu and memory 0: Fits checks only requests above zero.
    node = make_node(cpu="4", memory="1Gi")
    others = [make_pod("big", {"memory": "2Gi"})]
    res = admit_pod(make_pod("p", {"cpu": "1", "memory": "0"}), node, others)
    assert (res.result, res.failures) == ("admit", [])


def test_a_pod_for_another_node_fails_node_name() -> None:
    res = admit_pod(make_pod("p", {"cpu": "1"}, node="other"), make_node("n1"), [])
    assert (res.result, res.reason, res.message) == (
        "reject", "NodeName",
        "Predicate NodeName failed: node(s) didn't match the requested node name")
    assert res.to_json()["failures"] == [
        {"reason": "NodeName", "message": "node(s) didn't match the requested node name"}]


def test_evict_result_as_json() -> None:
    # A static pod short of 300m cpu on a full node: a BestEffort, a Burstable (200m) and
    # a Guaranteed (400m) pod run there. Guaranteed step: needed 300m - 0 - 200m = 100m,
    # the Guaranteed pod goes (distance 0); Burstable, with every BestEffort pod and the
    # evicted Guaranteed one assumed gone: nothing; BestEffort, with the evicted
    # Burstable and Guaranteed pods gone: nothing.
    g = {"cpu": "400m", "memory": "100Mi"}
    others = [make_pod("be"), make_pod("bu", {"cpu": "200m"}), make_pod("g", g, g)]
    res = admit_pod(make_pod("s", {"cpu": "700m"}, annotations=CRIT), make_node(cpu="1"),
                    others)
    assert res.to_json() == {
        "pod": "default/s", "node": "n1", "result": "evict", "victims": ["default/g"],
        "reason": "", "message": "", "critical": True,
        "failures": [{"reason": "OutOfcpu", "resource": "cpu", "requested": 700,
                      "used": 600, "capacity": 1000, "shortfall": 300}],
        "shortfall": [{"resource": "cpu", "quantity": 300}],
        "steps": [
            {"qos": "Guaranteed", "candidates": ["default/g"],
             "needed": [{"resource": "cpu", "quantity": 100}],
             "assumedGone": ["default/be", "default/bu"], "chosen": ["default/g"]},
            {"qos": "Burstable", "candidates": ["default/bu"], "needed": [],
             "assumedGone": ["default/be", "default/g"], "chosen": []},
            {"qos": "BestEffort", "candidates": ["default/be"], "needed": [],
             "assumedGone": ["default/g"], "chosen": []},
        ]}


def test_admit_names_what_is_missing() -> None:
    c = cluster_of(node("n1"), node("n2"), pod("p", "1", node_name="n2"))
    with pytest.raises(InputError) as exc:
        admit(c, "default/p", "nope")
    assert (exc.value.message, exc.value.kind, exc.value.name) == (
        "node 'nope' is not in the input", "Node", "nope")
    with pytest.raises(InputError) as exc:
        admit(c, "default/q", "n1")
    assert (exc.value.message, exc.value.kind, exc.value.name) == (
        "pod 'default/q' is not in the input", "Pod", "default/q")
    with pytest.raises(InputError) as exc:
        admit(c, "default/p", "n1")
    assert (exc.value.message, exc.value.kind, exc.value.name) == (
        "already bound to node 'n2', not 'n1'", "Pod", "default/p")
    assert exc.value.source is not None
