"""NodeResourcesBalancedAllocation where a node's requests wrap in int64.

Upstream sums requests in Go ``int64`` (``requested[i] = nodeInfo.Requested + podRequest``
in ``calculateResourceAllocatableRequest``), so a sum past 2^63 - 1 wraps to a negative
number; ``balancedResourceScorer`` then divides ``float64(requested) / float64(allocable)``,
caps only from above (``if fraction > 1``), and converts ``(1 - std) * MaxNodeScore`` back
with ``int64(...)``, which gives ``math.MinInt64`` for a value below int64's range on
amd64 and arm64 alike. The 1.36 score is ``(150 + with_pod - without_pod) / 2``
(kubernetes/kubernetes#135573); the cases below are chosen so that the halving is exact,
where Go's truncating ``/`` and a flooring one agree.

Every path must give that answer: ``score_node``, ``score`` on a few nodes (Python floats,
which do not wrap: they must hand such a node to numpy), ``score`` on many nodes (numpy),
and the generic path for a custom resource list.
"""

from __future__ import annotations

import numpy as np
import pytest
from builders.plugins import make_cluster

from kubepreempt.api.objects import Node, Pod
from kubepreempt.scheduler.framework import CycleState
from kubepreempt.scheduler.plugins.balanced_allocation import BalancedAllocation
from kubepreempt.scheduler.plugins.node_resources import SMALL
from kubepreempt.snapshot import CPU, MEMORY

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


def _go_score(alloc: tuple[int, int], used: tuple[int, int], pod: tuple[int, int]) -> int:
    """The worked answer: Go's int64 sum (wrapping), float64 fractions capped at 1 from
    above, ``int64()`` saturating below at MinInt64, and the exact halving."""
    def wrap(x: int) -> int:
        return (x + 2**63) % 2**64 - 2**63

    def balance(requested: tuple[int, int]) -> int:
        f = [min(float(q) / float(a), 1.0) for q, a in zip(requested, alloc, strict=True)]
        value = (1 - abs((f[0] - f[1]) / 2)) * 100
        return INT64_MIN if value < INT64_MIN else int(value)

    after = balance((wrap(used[0] + pod[0]), wrap(used[1] + pod[1])))
    numerator = 150 + after - balance(used)
    assert numerator % 2 == 0  # the cases keep Go's ``/`` and ``//`` equal
    return numerator // 2


CASES = [
    # cpu sum wraps to -2^63 on a 4-core node: a large negative balance, in int64 range
    ((4000, 4000), (INT64_MAX, 0), (1, 0), -57646075230342254),
    # the same on a 1m-cpu node: (1 - std) * 100 is below int64's range -> MinInt64
    ((1, 1), (INT64_MAX, 0), (1, 0), (INT64_MIN + 100) // 2),
    # memory wraps instead, cpu fraction 1
    ((4000, 4000), (4000, INT64_MAX), (1, 1), -57646075230342303),
]


@pytest.mark.parametrize(("alloc", "used", "pod", "expected"), CASES)
def test_worked_answers(alloc, used, pod, expected) -> None:
    assert _go_score(alloc, used, pod) == expected


def _state(alloc, used, pod, nodes: int = 1):
    cluster = make_cluster([Node(f"n{i}", allocatable={"cpu": 1, "memory": 1, "pods": 110})
                            for i in range(nodes)])
    for i in range(nodes):
        cluster.alloc[i, [CPU, MEMORY]] = alloc
        cluster.requested[i, [CPU, MEMORY]] = used
    requests = {"cpu": pod[0], "memory": pod[1]}
    p = Pod(namespace="default", name="p", requests=requests,
            nonzero_cpu=pod[0] or 100, nonzero_memory=pod[1] or 200 * 2**20)
    return CycleState(p, cluster, cluster.request_vector(p))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy's int64 wrap, as Go's
@pytest.mark.parametrize(("alloc", "used", "pod", "expected"), CASES)
def test_every_path_gives_the_wrapped_answer(alloc, used, pod, expected) -> None:
    plugin = BalancedAllocation()
    state = _state(alloc, used, pod, nodes=SMALL + 2)
    assert plugin.relevant(state)
    one = plugin.score_node(state, 0)
    assert one == expected and type(one) is int
    assert plugin.score(state, np.array([0], np.int64)).tolist() == [expected]
    many = np.arange(SMALL + 2, dtype=np.int64)
    assert plugin.score(state, many).tolist() == [expected] * (SMALL + 2)
    # A custom list whose extra resource the pod does not request: the same two fractions.
    generic = BalancedAllocation(("cpu", "memory", "example.com/gpu"))
    assert generic.score(state, many).tolist() == [expected] * (SMALL + 2)
    assert generic.score_node(state, 0) == expected


def test_two_fractions_use_half_their_difference_not_the_general_formula() -> None:
    """``balancedResourceScorer`` takes ``math.Abs((f0 - f1) / 2)`` for two fractions and
    the population standard deviation only for more: equal in exact arithmetic, not in
    float64. Fractions 1 and 800/2500 = 0.32: ``(1 - 0.32) / 2`` is 0.33999999999999997,
    so the balance is int64(66.00000000000001) = 66 (the general formula gives 0.34 and
    65); with nothing requested before (balance 100) the score is (150 + 66 - 100) / 2 = 58.
    """
    state = _state((1000, 2500), (0, 0), (1000, 800), nodes=SMALL + 2)
    many = np.arange(SMALL + 2, dtype=np.int64)
    for plugin in (BalancedAllocation(), BalancedAllocation(("cpu", "memory", "example.com/gpu"))):
        assert plugin.score(state, many).tolist() == [58] * (SMALL + 2)
        assert plugin.score_node(state, 0) == 58
