"""NodeResourcesFit: upstream's noderesources test tables (fit_test.go, least_allocated_test.go).

Ported: fit_test.go TestEnoughRequests (status code and reasons), TestNotEnoughRequests,
TestStorageRequests, TestRestartableInitContainers (SidecarContainers enabled: the gate is
GA; its two request cases in ``test_restartable_init_container_requests``), TestFitScore's
LeastAllocated cases; least_allocated_test.go TestLeastAllocatedScoringStrategy with the
default resources (cpu, memory weight 1).

Not ported (plugin arguments the default profile does not set, i.e. configuration
plumbing): "skip checking ignored extended resource" (IgnoredResources), "skip checking
ignored extended resource via resource groups" (IgnoredResourceGroups), the
MostAllocated/RequestedToCapacityRatio strategies, custom resource weights, the weight
validation errors, "Resources not set" and "bypass/honor extended resource" (a custom
resource set); TestRestartableInitContainers' "SidecarContainers disabled" cases (feature
gate); TestPreFilterDisabled (Go cycle-state plumbing); TestFitScore's "if PreScore is not
called" duplicates are the same numbers as the PreScore cases.

balanced_allocation_test.go is ported in ``test_upstream_balanced_allocation.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
from upstream_harness import UNRES, UNSCHED, run_filter, run_score, up_node, up_pod

from kubepreempt.scheduler.framework import Code
from kubepreempt.scheduler.plugins.node_resources import NodeResourcesFit

EXT_A = "example.com/aaa"
EXT_B = "example.com/bbb"
K8S_A = "kubernetes.io/something"
K8S_B = "subdomain.kubernetes.io/something"
HUGE_A = "hugepages-2Mi"


def res(cpu_m: int = 0, mem: int = 0, **scalars: int) -> dict[str, Any]:
    """A container as upstream's newResourcePod builds it (cpu in millicores)."""
    req = {"cpu": f"{cpu_m}m", "memory": str(mem)}
    req.update({k: str(v) for k, v in scalars.items()})
    return req


def ext(**kw: int) -> dict[str, int]:
    """Scalar resources by short name: a=example.com/aaa, b=..., k8s_a, k8s_b, huge."""
    names = {"a": EXT_A, "b": EXT_B, "k8s_a": K8S_A, "k8s_b": K8S_B, "huge": HUGE_A,
             "eph": "ephemeral-storage"}
    return {names[k]: v for k, v in kw.items()}


def rpod(name: str, containers: list[dict], inits: list[dict] = (), *, node: str | None = None,
         overhead: dict[str, str] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if inits:
        spec["initContainers"] = [{"name": f"i{i}", "image": "x", "resources": {"requests": r}}
                                  for i, r in enumerate(inits)]
    if overhead:
        spec["overhead"] = overhead
    return up_pod(name, node=node, spec=spec, containers=[
        {"name": f"c{i}", "image": "x", "resources": {"requests": r}}
        for i, r in enumerate(containers)])


def c(cpu_m: int = 0, mem: int = 0, **scalars: int) -> dict[str, str]:
    return res(cpu_m, mem, **ext(**scalars))


# makeAllocatableResources(10, 20, 32, 5, 20, 5)
ENOUGH_NODE = up_node("node", alloc={"cpu": "10m", "memory": "20", "pods": "32", EXT_A: "5",
                                     "ephemeral-storage": "20", HUGE_A: "5"})


def insufficient(*names: str) -> tuple[Code, tuple[str, ...]]:
    """Unschedulable: the node could fit the pod once other pods leave."""
    return UNSCHED, tuple(f"Insufficient {n}" for n in names)


def beyond(*names: str) -> tuple[Code, tuple[str, ...]]:
    """UnschedulableAndUnresolvable: the pod requests more than the node's whole allocatable
    (``InsufficientResource.Unresolvable``; upstream's table says ``Unresolvable: true``)."""
    return UNRES, tuple(f"Insufficient {n}" for n in names)


# (name, pod containers, pod init containers, existing pod's container, extra,
#  want (status code, reasons), or () when the pod fits)
ENOUGH_CASES: list[tuple[str, list, list, dict, dict, tuple]] = [
    ("no resources requested always fits", [], [], c(10, 20), {}, ()),
    ("too many resources fails", [c(1, 1)], [], c(10, 20), {},
     insufficient("cpu", "memory")),
    ("too many resources fails due to init container cpu", [c(1, 1)], [c(3, 1)], c(8, 19), {},
     insufficient("cpu")),
    ("too many resources fails due to highest init container cpu", [c(1, 1)],
     [c(3, 1), c(2, 1)], c(8, 19), {}, insufficient("cpu")),
    ("too many resources fails due to init container memory", [c(1, 1)], [c(1, 3)], c(9, 19),
     {}, insufficient("memory")),
    ("too many resources fails due to highest init container memory", [c(1, 1)],
     [c(1, 3), c(1, 2)], c(9, 19), {}, insufficient("memory")),
    ("init container fits because it's the max, not sum, of containers and init containers",
     [c(1, 1)], [c(1, 1)], c(9, 19), {}, ()),
    ("multiple init containers fit because it's the max, not sum, of containers and init "
     "containers", [c(1, 1)], [c(1, 1), c(1, 1)], c(9, 19), {}, ()),
    ("both resources fit", [c(1, 1)], [], c(5, 5), {}, ()),
    ("one resource memory fits", [c(2, 1)], [], c(9, 5), {}, insufficient("cpu")),
    ("one resource cpu fits", [c(1, 2)], [], c(5, 19), {}, insufficient("memory")),
    ("equal edge case", [c(5, 1)], [], c(5, 19), {}, ()),
    ("equal edge case for init container", [c(4, 1)], [c(5, 1)], c(5, 19), {}, ()),
    ("extended resource fits", [c(a=1)], [], c(), {}, ()),
    ("extended resource fits for init container", [c()], [c(a=1)], c(), {}, ()),
    ("extended resource capacity enforced", [c(1, 1, a=10)], [], c(a=0), {},
     beyond(EXT_A)),
    ("extended resource capacity enforced for init container", [c()], [c(1, 1, a=10)],
     c(a=0), {}, beyond(EXT_A)),
    ("extended resource allocatable enforced", [c(1, 1, a=1)], [], c(a=5), {},
     insufficient(EXT_A)),
    ("extended resource allocatable enforced for init container", [c()], [c(1, 1, a=1)],
     c(a=5), {}, insufficient(EXT_A)),
    ("extended resource allocatable enforced for multiple containers",
     [c(1, 1, a=3), c(1, 1, a=3)], [], c(a=2), {}, beyond(EXT_A)),
    ("extended resource allocatable admits multiple init containers", [c()],
     [c(1, 1, a=3), c(1, 1, a=3)], c(a=2), {}, ()),
    ("extended resource allocatable enforced for multiple init containers", [c()],
     [c(1, 1, a=6), c(1, 1, a=3)], c(a=2), {}, beyond(EXT_A)),
    ("extended resource allocatable enforced for unknown resource", [c(1, 1, b=1)], [], c(),
     {}, beyond(EXT_B)),
    ("extended resource allocatable enforced for unknown resource for init container", [c()],
     [c(1, 1, b=1)], c(), {}, beyond(EXT_B)),
    ("kubernetes.io resource capacity enforced", [c(1, 1, k8s_a=10)], [], c(), {},
     beyond(K8S_A)),
    ("kubernetes.io resource capacity enforced for init container", [c()],
     [c(1, 1, k8s_b=10)], c(), {}, beyond(K8S_B)),
    ("hugepages resource capacity enforced", [c(1, 1, huge=10)], [], c(huge=0), {},
     beyond(HUGE_A)),
    ("hugepages resource capacity enforced for init container", [c()], [c(1, 1, huge=10)],
     c(huge=0), {}, beyond(HUGE_A)),
    ("hugepages resource allocatable enforced for multiple containers",
     [c(1, 1, huge=3), c(1, 1, huge=3)], [], c(huge=2), {}, beyond(HUGE_A)),
    ("resources + pod overhead fits", [c(1, 1)], [], c(5, 5),
     {"overhead": {"cpu": "3m", "memory": "13"}}, ()),
    ("requests + overhead does not fit for memory", [c(1, 1)], [], c(5, 5),
     {"overhead": {"cpu": "1m", "memory": "15"}}, insufficient("memory")),
    ("skip checking extended resource request with quantity zero via resource groups",
     [c(1, 1, a=0)], [], c(a=6), {}, ()),
    ("skip checking resource request with quantity zero", [c(a=1)], [], c(20, 30, a=1), {},
     ()),
]


def _fit(pod: dict[str, Any], node: dict[str, Any], existing: list[dict]) -> Any:
    return run_filter(NodeResourcesFit(), pod, [node], existing)["node"]


@pytest.mark.parametrize(("containers", "inits", "existing", "extra", "want"),
                         [x[1:] for x in ENOUGH_CASES], ids=[x[0] for x in ENOUGH_CASES])
def test_enough_requests(containers, inits, existing, extra, want) -> None:
    pod = rpod("p", containers, inits, **extra)
    status = _fit(pod, ENOUGH_NODE, [rpod("existing", [existing], node="node")])
    if not want:
        assert status is None
    else:
        assert (status.code, status.reasons) == want


NOT_ENOUGH_NODE = up_node("node", alloc={"cpu": "10m", "memory": "20", "pods": "1"})
NOT_ENOUGH_CASES = [
    ("even without specified resources, predicate fails when there's no space for additional "
     "pod", [], [], c(10, 20)),
    ("even if both resources fit, predicate fails when there's no space for additional pod",
     [c(1, 1)], [], c(5, 5)),
    ("even for equal edge case, predicate fails when there's no space for additional pod",
     [c(5, 1)], [], c(5, 19)),
    ("even for equal edge case, predicate fails when there's no space for additional pod due "
     "to init container", [c(5, 1)], [c(5, 1)], c(5, 19)),
]


@pytest.mark.parametrize(("containers", "inits", "existing"), [x[1:] for x in NOT_ENOUGH_CASES],
                         ids=[x[0] for x in NOT_ENOUGH_CASES])
def test_not_enough_requests(containers, inits, existing) -> None:
    status = _fit(rpod("p", containers, inits), NOT_ENOUGH_NODE,
                  [rpod("existing", [existing], node="node")])
    assert (status.code, status.reasons) == (UNSCHED, ("Too many pods",))


STORAGE_CASES = [
    ("empty storage requested, and pod fits", [c(1, 1)], c(2, 10), ()),
    ("storage ephemeral local storage request exceeds allocatable", [c(eph=25)], c(2, 2),
     beyond("ephemeral-storage")),
    ("ephemeral local storage is sufficient", [c(eph=5)], c(2, 2, eph=10), ()),
    ("pod fits", [c(eph=10)], c(2, 2), ()),
]


@pytest.mark.parametrize(("containers", "existing", "want"), [x[1:] for x in STORAGE_CASES],
                         ids=[x[0] for x in STORAGE_CASES])
def test_storage_requests(containers, existing, want) -> None:
    status = _fit(rpod("p", containers), ENOUGH_NODE, [rpod("existing", [existing], node="node")])
    assert (status is None) if not want else (status.code, status.reasons) == want


@pytest.mark.parametrize("restartable", [False, True], ids=[
    "allow pod without restartable init containers if sidecar containers is enabled",
    "allow pod with restartable init containers if sidecar containers is enabled"])
def test_restartable_init_containers(restartable: bool) -> None:
    spec: dict[str, Any] = {}
    if restartable:
        spec["initContainers"] = [{"name": "restartable-init", "image": "x",
                                   "restartPolicy": "Always"}]
    pod = up_pod("p", spec=spec, containers=[{"name": "regular", "image": "x"}])
    node = up_node("node", alloc={"cpu": "0", "memory": "0", "pods": "1"})
    assert _fit(pod, node, []) is None


@pytest.mark.parametrize(("sidecar_cpu", "want"), [("1m", None), ("2m", beyond("cpu"))], ids=[
    "allow pod if the total requested resources do not exceed the node's allocatable resources",
    "not allow pod if the total requested resources do exceed the node's allocatable resources"])
def test_restartable_init_container_requests(sidecar_cpu: str, want) -> None:
    # makeAllocatableResources(2, 0, 1, 0, 0, 0): 2m cpu, no memory, one pod.
    pod = up_pod("p", spec={"initContainers": [
        {"name": "restartable-init", "image": "x", "restartPolicy": "Always",
         "resources": {"requests": {"cpu": sidecar_cpu}}}]},
        containers=[{"name": "regular", "image": "x", "resources": {"requests": {"cpu": "1m"}}}])
    node = up_node("node", alloc={"cpu": "2m", "memory": "0", "pods": "1"})
    status = _fit(pod, node, [])
    assert (status is None) if want is None else (status.code, status.reasons) == want


# ---------------------------------------------------------------------------------------
# Scoring: LeastAllocated, cpu and memory weight 1 (the default profile)
# ---------------------------------------------------------------------------------------
def cap(name: str, cpu: str | None = None, memory: str | None = None) -> dict[str, Any]:
    """``st.MakeNode().Name(name).Capacity({...})`` (sets allocatable too)."""
    alloc = {"pods": "110"}
    if cpu is not None:
        alloc |= {"cpu": cpu, "memory": memory or "0"}
    return up_node(name, alloc=alloc)


def req_pod(name: str, *reqs: tuple[str, str], node: str | None = None) -> dict[str, Any]:
    """``st.MakePod().Req(...)...``: one container per Req; none without."""
    return up_pod(name, node=node, containers=[
        {"name": f"c{i}", "image": "x", "resources": {"requests": {"cpu": cpu, "memory": mem}}}
        for i, (cpu, mem) in enumerate(reqs)])


TWO_REQ = (("1000", "2000"), ("2000", "3000"))
LEAST_CASES: list[tuple[str, dict, list, list, dict[str, int]]] = [
    ("nothing scheduled, nothing requested", req_pod("p"),
     [cap("node1", "4000", "10000"), cap("node2", "4000", "10000")], [],
     {"node1": 100, "node2": 100}),
    ("nothing scheduled, resources requested, differently sized nodes", req_pod("p", *TWO_REQ),
     [cap("node1", "4000", "10000"), cap("node2", "6000", "10000")], [],
     {"node1": 37, "node2": 50}),
    ("no resources requested, pods scheduled", req_pod("p"),
     [cap("node1", "4000", "10000"), cap("node2", "4000", "10000")],
     [req_pod(f"e{i}", node=n) for i, n in enumerate(["node1", "node1", "node2", "node2"])],
     {"node1": 100, "node2": 100}),
    ("no resources requested, pods scheduled with resources", req_pod("p"),
     [cap("node1", "10000", "20000"), cap("node2", "10000", "20000")],
     [req_pod("e1", ("3000", "0"), node="node1"), req_pod("e2", ("3000", "0"), node="node1"),
      req_pod("e3", ("3000", "0"), node="node2"), req_pod("e4", ("3000", "5000"), node="node2")],
     {"node1": 70, "node2": 57}),
    ("resources requested, pods scheduled with resources", req_pod("p", *TWO_REQ),
     [cap("node1", "10000", "20000"), cap("node2", "10000", "20000")],
     [req_pod("e1", ("3000", "0"), node="node1"), req_pod("e2", ("3000", "5000"), node="node2")],
     {"node1": 57, "node2": 45}),
    ("resources requested, pods scheduled with resources, differently sized nodes",
     req_pod("p", *TWO_REQ), [cap("node1", "10000", "20000"), cap("node2", "10000", "50000")],
     [req_pod("e1", ("3000", "0"), node="node1"), req_pod("e2", ("3000", "5000"), node="node2")],
     {"node1": 57, "node2": 60}),
    ("requested resources exceed node capacity", req_pod("p", ("3000", "0")),
     [cap("node1", "4000", "10000"), cap("node2", "4000", "10000")],
     [req_pod("e1", ("3000", "0"), node="node1"), req_pod("e2", ("3000", "5000"), node="node2")],
     {"node1": 50, "node2": 25}),
    ("zero node resources, pods scheduled with resources", req_pod("p"),
     [cap("node1"), cap("node2")],
     [req_pod("e1", ("3000", "0"), node="node1"), req_pod("e2", ("3000", "5000"), node="node2")],
     {"node1": 0, "node2": 0}),
    # fit_test.go TestFitScore
    ("test case for ScoringStrategy LeastAllocated", req_pod("p", ("1000", "2000")),
     [cap("node1", "4000", "10000"), cap("node2", "6000", "10000")],
     [req_pod("e1", ("2000", "4000"), node="node1"), req_pod("e2", ("1000", "2000"), node="node2")],
     {"node1": 32, "node2": 63}),
]


@pytest.mark.parametrize(("pod", "nodes", "pods", "want"), [x[1:] for x in LEAST_CASES],
                         ids=[x[0] for x in LEAST_CASES])
def test_least_allocated_score(pod, nodes, pods, want) -> None:
    assert run_score(NodeResourcesFit(), pod, nodes, pods) == want
