"""Cluster Autoscaler scale-up: the expanders and the binpacking estimator, each
expected answer worked out from kubernetes/autoscaler cluster-autoscaler-release-1.37
(the function is named in each test). The test nodes give allocatable only, so their
capacity (what ``waste.resourcesForNode`` reads) is the same."""

from __future__ import annotations

import pytest
from builders.autoscaler import run
from builders.autoscaler_scale_up import pod, scale_ups, sized_node


def two_groups(a: tuple[str, str], b: tuple[str, str], hi: int = 3,
               prio: tuple[int | None, int | None] = (None, None)) -> str:
    """Groups a and b of ``(cpu, memory)`` nodes, each with one node full on cpu."""
    return (sized_node("a1", "a", *a, hi=hi, priority=prio[0]) + pod("fa", a[0], node="a1")
            + sized_node("b1", "b", *b, hi=hi, priority=prio[1]) + pod("fb", b[0], node="b1"))


def first_scale_up(text: str, seed: int = 0, **options) -> str:
    return scale_ups(run(text, until=30, seed=seed, **options))[0][1]


def test_least_waste_adds_the_wasted_memory_fraction() -> None:
    """``leastwaste.BestOptions``: score = (availCPU - requested)/availCPU + (availMemory
    - requested)/availMemory. p asks 1.5 CPU and 3Gi. a (2 CPU, 16Gi): 0.25 + 13/16 =
    1.0625; b (4 CPU, 4Gi): 0.625 + 0.25 = 0.875 -> b (on cpu alone a would win)."""
    text = two_groups(("2", "16Gi"), ("4", "4Gi")) + pod("p", "1500m", "3Gi")
    assert first_scale_up(text) == "group b: +1 node(s) for 1 pod(s)"


def test_least_waste_counts_every_new_node() -> None:
    """``availCPU := nodeCPU * NodeCount`` (memory likewise). Two pods of 1.5 CPU, 3Gi:
    a (4 CPU, 8Gi) takes both on 1 node: 0.25 + 0.25 = 0.5; b (2 CPU, 5Gi) needs 2
    nodes: (4-3)/4 + (10-6)/10 = 0.65 -> a."""
    text = (two_groups(("4", "8Gi"), ("2", "5Gi")) + pod("p1", "1500m", "3Gi")
            + pod("p2", "1500m", "3Gi"))
    assert first_scale_up(text) == "group a: +1 node(s) for 2 pod(s)"


@pytest.mark.parametrize("expander", ["random", "least-waste", "most-pods", "priority"])
def test_ties_are_broken_at_random(expander: str) -> None:
    """Groups a and b are alike, so every expander leaves both options (same waste, same
    pods helped, same priority); the chain ends in the random expander
    (``expander/factory``: ``random.NewStrategy`` as the fallback), which picks either:
    over ten seeds both groups are chosen."""
    text = two_groups(("2", "4Gi"), ("2", "4Gi")) + pod("p", "1")
    chosen = {first_scale_up(text, seed, expander=expander).split(":")[0]
              for seed in range(10)}
    assert chosen == {"group a", "group b"}


def one_group(hi: int = 2) -> str:
    """Group a of 2-CPU nodes (max ``hi``) with one node, full."""
    return sized_node("a1", "a", "2", "8Gi", hi=hi) + pod("fa", "2", node="a1")


def test_binpacking_at_the_group_limit_still_fills_the_new_nodes() -> None:
    """Room for one node (max 2, one node). ``BinpackingNodeEstimator.Estimate``: big
    opens the one node allowed; big2 does not fit it and ``PermissionToAddNode`` says no
    (``tryToScheduleOnNewNodes`` returns false, no more nodes); small's equivalence group
    is still tried on the new node (``tryToScheduleOnExistingNodes``) and fits: one node
    for two pods."""
    text = (one_group() + pod("big", "1500m") + pod("big2", "1500m")
            + pod("small", "500m"))
    assert first_scale_up(text) == "group a: +1 node(s) for 2 pod(s)"


def test_a_pod_larger_than_the_template_is_not_estimated() -> None:
    """huge (3 CPU) fits no 2-CPU template node: the group cannot help it (it is not among
    the pods the option schedules); p (1 CPU) gets one node."""
    text = one_group(hi=3) + pod("huge", "3") + pod("p", "1")
    assert first_scale_up(text) == "group a: +1 node(s) for 1 pod(s)"
