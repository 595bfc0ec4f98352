"""``NodeStatuses`` is upstream's ``NodeToStatus`` map (``pkg/scheduler/framework/types.go``):
node -> the status that rejected it, absent for a node that passed or was never filtered.

Each test reads it the way the scheduler does — as a map (lookups, membership, deletion,
iteration, length, compared with a plain dict), through ``counts`` (``FitError.Error()``'s
histogram: every distinct status once, with how many nodes have it) and through
``nodes_where`` (DefaultPreemption's ``nodesWherePreemptionMightHelp``: a node without an
explicit status has the default absent-node status, UnschedulableAndUnresolvable, and is
never a candidate).
"""

from __future__ import annotations

import numpy as np
import pytest

from kubepreempt.scheduler.framework import Code, Status
from kubepreempt.scheduler.preemption import nodes_where_preemption_might_help
from kubepreempt.scheduler.statuses import NodeStatuses, fit_error_message

CPU = Status(Code.UNSCHEDULABLE, ("Insufficient cpu",), "NodeResourcesFit")
TAINT = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
               ("node(s) had untolerated taint {a: b}",), "TaintToleration")


def test_behaves_as_a_map_of_node_to_status() -> None:
    """Every map operation agrees with a dict holding the same entries."""
    got, want = NodeStatuses(5), {}
    got.set_many(np.array([0, 3]), CPU)
    want.update({0: CPU, 3: CPU})
    got[4] = TAINT
    want[4] = TAINT
    del got[3]
    del want[3]
    for key in range(5):
        assert (key in got) == (key in want)
        assert got.get(key) == want.get(key)
    assert list(got) == sorted(want) == [0, 4]
    assert len(got) == len(want) == 2
    assert got.nodes_where(lambda st: True).tolist() == [0, 4]  # the deleted node too
    assert dict(got.items()) == want
    with pytest.raises(KeyError) as missing:
        del got[3]
    assert missing.value.args == (3,)
    with pytest.raises(KeyError) as lookup:
        got[1]  # noqa: B018 (the lookup is the test)
    assert lookup.value.args == (1,)


def test_keys_that_are_not_nodes_are_absent() -> None:
    """An index past the last node, a negative one or a node name is not a key (a map
    lookup, not an array index): no status and no error."""
    got = NodeStatuses(3)
    got.set_many(np.arange(3), CPU)
    for key in (3, 4, -1, "n1", None):
        assert key not in got
        assert got.get(key) is None
    with pytest.raises(KeyError):
        del got[3]


def test_counts_each_distinct_status_once_even_after_clearing() -> None:
    """The same status given to nodes in two calls is one entry; a status no node has any
    more (its nodes cleared) is left out, whatever its position in the table."""
    got = NodeStatuses(4)
    got.set_many(np.array([0]), CPU)
    got.set_many(np.array([1]), TAINT)
    got.set_many(np.array([2]), Status(Code.UNSCHEDULABLE, ("Insufficient cpu",),
                                       "NodeResourcesFit"))  # equal to CPU
    assert got.counts() == [(CPU, 2), (TAINT, 1)]
    got.clear_many([1])
    assert got.counts() == [(CPU, 2)]
    assert fit_error_message(4, got) == "0/4 nodes are available: 2 Insufficient cpu."


def test_nodes_without_a_status_are_never_preemption_candidates() -> None:
    """``nodesWherePreemptionMightHelp``: only nodes whose status is Unschedulable. A node
    never given a status, and one whose status was cleared (``clear_many``), have
    upstream's absent-node status instead and are skipped, whatever the predicate."""
    got = NodeStatuses(5)
    got.set_many(np.array([0, 1, 2]), CPU)
    got.set_many(np.array([3]), TAINT)
    got.clear_many([1])
    assert nodes_where_preemption_might_help(got, 5).tolist() == [0, 2]
    assert got.nodes_where(lambda st: True).tolist() == [0, 2, 3]
    assert got.nodes_where(lambda st: False).tolist() == []
    assert 1 not in got and got.unset_mask().tolist() == [False, True, False, False, True]
