"""NodeResourcesFit scoring strategies and ignored resources: upstream's noderesources tables.

Ported: most_allocated_test.go TestMostAllocatedScoringStrategy (scores, and its weight
validation errors through the configuration's NodeResourcesFit args);
requested_to_capacity_ratio_test.go TestRequestedToCapacityRatioScoringStrategy,
TestBrokenLinearFunction, TestResourceBinPackingSingleExtended; fit_test.go
TestEnoughRequests' "skip checking ignored extended resource" (ignoredResources) and
"... via resource groups" (ignoredResourceGroups) cases.

Not ported: "Resources not set, pods scheduled with error" (the defaulting fills an empty
resource list, so a configuration cannot produce it).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from upstream_harness import UNRES, build, run_score, up_node, up_pod

from kubepreempt.api.errors import InputError
from kubepreempt.scheduler.config import parse_scheduler_config
from kubepreempt.scheduler.plugins.node_resources import NodeResourcesFit
from kubepreempt.scheduler.plugins.resource_allocation import (
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    ScoringStrategy,
    broken_linear,
    combine,
    combine_vec,
)
from kubepreempt.scheduler.profile import Profile
from kubepreempt.scheduler.scheduler import Scheduler

DEFAULT = (("cpu", 1), ("memory", 1))
EXT = "intel.com/foo"


def cap(name: str, cpu: str, memory: str, **extra: str) -> dict[str, Any]:
    """``st.MakeNode().Name(name).Capacity({...})``."""
    return up_node(name, alloc={"cpu": cpu, "memory": memory, "pods": "110", **extra})


def req_pod(name: str, *reqs: dict[str, str], node: str | None = None) -> dict[str, Any]:
    """``st.MakePod().Req(...)...``: one container per Req, none without."""
    return up_pod(name, node=node, containers=[
        {"name": f"c{i}", "image": "x", "resources": {"requests": r}}
        for i, r in enumerate(reqs)])


def bare(name: str, node: str | None = None) -> dict[str, Any]:
    """``st.MakePod().Container("container")``: one container without requests."""
    return up_pod(name, node=node)


TWO = ({"cpu": "1000", "memory": "2000"}, {"cpu": "2000", "memory": "3000"})

MOST_CASES = [
    ("nothing scheduled, nothing requested", req_pod("p"),
     [cap("node1", "4000", "10000"), cap("node2", "4000", "10000")], [], DEFAULT,
     {"node1": 0, "node2": 0}),
    ("nothing scheduled, resources requested, differently sized nodes", req_pod("p", *TWO),
     [cap("node1", "4000", "10000"), cap("node2", "6000", "10000")], [], DEFAULT,
     {"node1": 62, "node2": 50}),
    ("no resources requested, pods scheduled with resources", req_pod("p"),
     [cap("node1", "10000", "20000"), cap("node2", "10000", "20000")],
     [req_pod("e1", {"cpu": "3000", "memory": "0"}, node="node1"),
      req_pod("e2", {"cpu": "3000", "memory": "0"}, node="node1"),
      req_pod("e3", {"cpu": "3000", "memory": "0"}, node="node2"),
      req_pod("e4", {"cpu": "3000", "memory": "5000"}, node="node2")], DEFAULT,
     {"node1": 30, "node2": 42}),
    ("resources requested, pods scheduled with resources", req_pod("p", *TWO),
     [cap("node1", "10000", "20000"), cap("node2", "10000", "20000")],
     [req_pod("e1", {"cpu": "3000", "memory": "0"}, node="node1"),
      req_pod("e2", {"cpu": "3000", "memory": "5000"}, node="node2")], DEFAULT,
     {"node1": 42, "node2": 55}),
    ("resources requested equal node capacity",
     req_pod("p", {"cpu": "2000", "memory": "4000"}, {"cpu": "3000", "memory": "5000"}),
     [cap("node1", "5000", "10000"), cap("node2", "10000", "9000")], [], DEFAULT,
     {"node1": 95, "node2": 75}),
    ("nothing scheduled, resources requested, differently sized nodes (weights)",
     req_pod("p", *TWO), [cap("node1", "4000", "10000"), cap("node2", "6000", "10000")], [],
     (("memory", 2), ("cpu", 1)), {"node1": 58, "node2": 50}),
    ("no resources requested, pods scheduled, nonzero request for resource", bare("p"),
     [cap("node1", "250m", "1000Mi"), cap("node2", "250m", "1000Mi")],
     [bare("e1", node="node1"), bare("e2", node="node1")], DEFAULT,
     {"node1": 80, "node2": 30}),
    ("bypass extended resource if the pod does not request", req_pod("p", *TWO),
     [cap("node1", "6000", "10000"), cap("node2", "6000", "10000", **{EXT: "4"})], [],
     (*DEFAULT, (EXT, 1)), {"node1": 50, "node2": 50}),
    ("honor extended resource if the pod request",
     req_pod("p", {"cpu": "3000", "memory": "5000", EXT: "2"}),
     [cap("node1", "6000", "10000", **{EXT: "4"}), cap("node2", "6000", "10000", **{EXT: "10"})],
     [], (*DEFAULT, (EXT, 1)), {"node1": 50, "node2": 40}),
    ("if the node doesn't have a resource", req_pod("p", {"cpu": "3000", "memory": "4000"}),
     [cap("node1", "6000", "10000"), cap("node2", "6000", "10000", **{EXT: "4"})], [],
     ((EXT, 2), *DEFAULT), {"node1": 45, "node2": 45}),
]


@pytest.mark.parametrize(("pod", "nodes", "pods", "resources", "want"),
                         [c[1:] for c in MOST_CASES], ids=[c[0] for c in MOST_CASES])
def test_most_allocated(pod, nodes, pods, resources, want) -> None:
    plugin = NodeResourcesFit(ScoringStrategy(MOST_ALLOCATED, resources))
    assert run_score(plugin, pod, nodes, pods) == want


def _fit_config(resources: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": {
                "scoringStrategy": {"type": "MostAllocated", "resources": resources}}}]}]}


@pytest.mark.parametrize(("resources", "field", "value"), [
    # "resource with negative weight"
    ([{"name": "memory", "weight": -1}, {"name": "cpu", "weight": 1}],
     "scoringStrategy.resources[0].weight", "-1"),
    # "resource weight larger than MaxNodeScore"
    ([{"name": "memory", "weight": 101}], "scoringStrategy.resources[0].weight", "101"),
])
def test_most_allocated_weight_errors(resources, field, value) -> None:
    with pytest.raises(InputError) as err:
        parse_scheduler_config(_fit_config(resources))
    assert f"{field}: Invalid value: {value}: resource weight of memory not in valid " \
        "range (0, 100]" in str(err.value)


def test_most_allocated_zero_weight_is_defaulted_to_one() -> None:
    """Upstream "resource with zero weight" fails NewFit's validation, but the v1 defaulting
    (SetDefaults_NodeResourcesFitArgs) turns 0 into 1 before a configuration gets there."""
    cfg = parse_scheduler_config(_fit_config([{"name": "memory", "weight": 1},
                                              {"name": "cpu", "weight": 0}]))
    fit = next(f for f in cfg.profiles[0].filters if f.name == "NodeResourcesFit")
    assert fit.scoring == ScoringStrategy(MOST_ALLOCATED, (("memory", 1), ("cpu", 1)))


SHAPE = ((0, 10), (100, 0))
RTCR_CASES = [
    ("nothing scheduled, nothing requested (default - least requested nodes have priority)",
     req_pod("p"), [cap("node1", "4000", "10000"), cap("node2", "4000", "10000")],
     [req_pod("e1", node="node1"), req_pod("e2", node="node1")], {"node1": 100, "node2": 100}),
    ("nothing scheduled, resources requested, differently sized nodes (default - least "
     "requested nodes have priority)", req_pod("p", *TWO),
     [cap("node1", "4000", "10000"), cap("node2", "6000", "10000")],
     [req_pod("e1", node="node1"), req_pod("e2", node="node1")], {"node1": 38, "node2": 50}),
    ("no resources requested, pods scheduled with resources (default - least requested nodes "
     "have priority)", req_pod("p"),
     [cap("node1", "4000", "10000"), cap("node2", "6000", "10000")],
     [req_pod("e1", {"cpu": "3000", "memory": "5000"}, node="node1"),
      req_pod("e2", {"cpu": "3000", "memory": "5000"}, node="node2")],
     {"node1": 38, "node2": 50}),
]


@pytest.mark.parametrize(("pod", "nodes", "pods", "want"), [c[1:] for c in RTCR_CASES],
                         ids=[c[0] for c in RTCR_CASES])
def test_requested_to_capacity_ratio(pod, nodes, pods, want) -> None:
    plugin = NodeResourcesFit(ScoringStrategy(REQUESTED_TO_CAPACITY_RATIO, DEFAULT, SHAPE))
    assert run_score(plugin, pod, nodes, pods) == want


@pytest.mark.parametrize(("points", "assertions"), [
    (((10, 1), (90, 9)), [(-10, 1), (0, 1), (9, 1), (10, 1), (15, 1), (19, 1), (20, 2),
                          (89, 8), (90, 9), (99, 9), (100, 9), (110, 9)]),
    (((0, 2), (40, 10), (100, 0)), [(-10, 2), (0, 2), (20, 6), (30, 8), (40, 10), (70, 5),
                                    (100, 0), (110, 0)]),
    (((0, 2), (40, 2), (100, 2)), [(-10, 2), (0, 2), (20, 2), (30, 2), (40, 2), (70, 2),
                                   (100, 2), (110, 2)]),
])
def test_broken_linear_function(points, assertions) -> None:
    for p, want in assertions:
        assert broken_linear(points, p) == want, (points, p)


def test_broken_linear_truncates_toward_zero_on_a_falling_slope() -> None:
    # (0,100)-(100,0) at 33: 100 + (-100 * 33) / 100 = 100 - 33 (Go truncates -33.0);
    # at 1 with (0,10)-(3,0): 10 + (-10 * 1) / 3 = 10 - 3 = 7 (floor division would give 6).
    assert broken_linear(((0, 100), (100, 0)), 33) == 67
    assert broken_linear(((0, 10), (3, 0)), 1) == 7


def make_node(name: str, foo: str) -> dict[str, Any]:
    """``makeNode(name, 4000, 10000*1024*1024, {intel.com/foo: n})``."""
    return up_node(name, alloc={"cpu": "4", "memory": str(10000 * 1024 * 1024), "pods": "110",
                                EXT: foo})


BIN_SINGLE = [
    ("nothing scheduled, nothing requested", req_pod("p"), [], {"node1": 0, "node2": 0}),
    ("resources requested, pods scheduled with less resources", req_pod("p", {EXT: "2"}),
     [req_pod("e")], {"node1": 2, "node2": 5}),
    ("resources requested, pods scheduled with resources, on node with existing pod running ",
     req_pod("p", {EXT: "2"}), [req_pod("e", {EXT: "2"}, node="node2")],
     {"node1": 2, "node2": 10}),
    ("resources requested, pods scheduled with more resources", req_pod("p", {EXT: "4"}),
     [req_pod("e")], {"node1": 5, "node2": 10}),
]


@pytest.mark.parametrize(("pod", "pods", "want"), [c[1:] for c in BIN_SINGLE],
                         ids=[c[0] for c in BIN_SINGLE])
def test_resource_bin_packing_single_extended(pod, pods, want) -> None:
    plugin = NodeResourcesFit(ScoringStrategy(REQUESTED_TO_CAPACITY_RATIO, ((EXT, 1),),
                                              ((0, 0), (100, 1))))
    nodes = [make_node("node1", "8"), make_node("node2", "4")]
    pods = [p if p["spec"].get("nodeName") else {**p, "spec": {**p["spec"],
                                                              "nodeName": "node1"}}
            for p in pods]
    assert run_score(plugin, pod, nodes, pods) == want


@pytest.mark.parametrize("kind", [MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO, "LeastAllocated"])
def test_vector_and_scalar_paths_agree(kind: str) -> None:
    """``combine_vec`` (many nodes) equals ``combine`` (the cache's one-node path)."""
    rng = np.random.default_rng(7)
    strategy = ScoringStrategy(kind, (("cpu", 3), ("memory", 1), (EXT, 2)),
                               ((0, 2), (40, 10), (100, 0)) if kind != MOST_ALLOCATED
                               and kind != "LeastAllocated" else ())
    req = rng.integers(0, 5000, (400, 3))
    alloc = rng.integers(0, 4000, (400, 3))
    alloc[rng.random((400, 3)) < 0.2] = 0
    want = [combine(strategy, r, a) for r, a in zip(req.tolist(), alloc.tolist(), strict=True)]
    assert combine_vec(strategy, req, alloc).tolist() == want


# fit_test.go TestEnoughRequests, makeAllocatableResources(10, 20, 32, 5, 20, 5)
ENOUGH_NODE = up_node("node", alloc={"cpu": "10m", "memory": "20", "pods": "32",
                                     "example.com/aaa": "5", "ephemeral-storage": "20",
                                     "hugepages-2Mi": "5"})


def _filter_with(fit: NodeResourcesFit, requests: dict[str, str]):
    pod = up_pod("p", containers=[{"name": "c", "image": "x",
                                   "resources": {"requests": requests}}])
    existing = up_pod("e", node="node", containers=[{"name": "c", "image": "x"}])
    cluster, pod_obj, _ = build(pod, [ENOUGH_NODE], [existing])
    sched = Scheduler(cluster, Profile([fit], [fit]))
    state, prefilter, filters = sched.new_state(pod_obj)
    assert prefilter is None
    view = cluster.node_view(0)
    per_node = fit.filter(state, view)
    vector = fit.filter_nodes(state, np.array([0], np.int64))
    assert (per_node is None) == (not vector)
    return per_node


def test_skip_checking_ignored_extended_resource() -> None:
    fit = NodeResourcesFit(ignored_resources=frozenset({"example.com/bbb"}))
    assert _filter_with(fit, {"cpu": "1m", "memory": "1", "example.com/bbb": "1"}) is None
    # Without the argument the same pod is rejected (the rule is what lets it fit); the node
    # has none of it, so preemption cannot help (upstream: "extended resource allocatable
    # enforced for unknown resource", Unresolvable).
    status = _filter_with(NodeResourcesFit(),
                          {"cpu": "1m", "memory": "1", "example.com/bbb": "1"})
    assert (status.code, status.reasons) == (UNRES, ("Insufficient example.com/bbb",))


def test_skip_checking_ignored_extended_resource_via_resource_groups() -> None:
    fit = NodeResourcesFit(ignored_groups=frozenset({"example.com"}))
    status = _filter_with(fit, {"cpu": "1m", "memory": "1", "example.com/bbb": "1",
                                "kubernetes.io/something": "1"})
    # kubernetes.io resources are not extended resources: never ignored (upstream's case
    # wants UnschedulableAndUnresolvable: the node has none of it).
    assert (status.code, status.reasons) == (UNRES, ("Insufficient kubernetes.io/something",))


def test_ignored_resources_are_only_extended_resources() -> None:
    fit = NodeResourcesFit(ignored_resources=frozenset({"memory"}))
    status = _filter_with(fit, {"cpu": "1m", "memory": "100"})
    assert status.reasons == ("Insufficient memory",)


@pytest.mark.parametrize("kind", [MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO, "LeastAllocated"])
def test_few_node_path_equals_the_vector_path_on_a_cluster(kind: str) -> None:
    """``strategy_scores`` on one node at a time (the cache's path) equals all at once."""
    from kubepreempt.scheduler.plugins.resource_allocation import strategy_scores

    rng = np.random.default_rng(3)
    nodes = [cap(f"n{i}", f"{rng.integers(1, 9)}", f"{rng.integers(1, 9)}Gi",
                 **({EXT: str(rng.integers(0, 5))} if i % 3 else {})) for i in range(12)]
    pods = [req_pod(f"e{i}", {"cpu": f"{rng.integers(0, 3000)}m",
                              "memory": f"{rng.integers(0, 4000)}Mi",
                              **({EXT: "1"} if i % 2 else {})}, node=f"n{i % 12}")
            for i in range(30)]
    pods += [bare(f"b{i}", node=f"n{i}") for i in range(0, 12, 2)]  # non-zero defaults
    strategy = ScoringStrategy(kind, (("cpu", 2), ("memory", 1), (EXT, 3),
                                      ("ephemeral-storage", 1)),
                               ((0, 0), (50, 10), (100, 4)) if kind == REQUESTED_TO_CAPACITY_RATIO
                               else ())
    for incoming in (req_pod("p", {"cpu": "500m", "memory": "1Gi", EXT: "1"}), req_pod("q"),
                     bare("r")):
        cluster, pod, _ = build(incoming, nodes, pods)
        idx = np.arange(len(nodes), dtype=np.int64)
        together = strategy_scores(strategy, cluster, idx, pod).tolist()
        one_by_one = [int(strategy_scores(strategy, cluster, idx[i:i + 1], pod)[0])
                      for i in range(len(nodes))]
        assert together == one_by_one


def test_kubernetes_io_resources_are_not_extended_so_never_ignored() -> None:
    """IsExtendedResourceName: a name under kubernetes.io/ is a (prefixed) native resource,
    so ignoredResourceGroups ["kubernetes.io"] does not skip it."""
    fit = NodeResourcesFit(ignored_groups=frozenset({"kubernetes.io"}))
    status = _filter_with(fit, {"cpu": "1m", "memory": "1", "kubernetes.io/something": "1"})
    assert status.reasons == ("Insufficient kubernetes.io/something",)
