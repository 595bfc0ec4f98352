"""NodeUnschedulable: upstream's node_unschedulable_test.go TestNodeUnschedulable table.

TestIsSchedulableAfterNodeChange (the queueing hint) is in test_upstream_queueing_hints.py.
"""

from __future__ import annotations

import pytest
from upstream_harness import UNRES, UNSCHEDULABLE_TAINT, run_filter, up_node, up_pod

from kubepreempt.scheduler.plugins.node_unschedulable import NodeUnschedulable

CASES = [
    ("Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)", [], True,
     False),
    ("Schedule pod to normal node", [], False, True),
    ("Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)",
     [{"key": UNSCHEDULABLE_TAINT["key"], "effect": "NoSchedule"}], True, True),
]


@pytest.mark.parametrize(("tolerations", "cordoned", "fits"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_node_unschedulable(tolerations, cordoned, fits) -> None:
    pod = up_pod("p", spec={"tolerations": tolerations} if tolerations else None)
    status = run_filter(NodeUnschedulable(), pod, [up_node("n", unschedulable=cordoned)])["n"]
    if fits:
        assert status is None
    else:
        assert (status.code, status.reasons) == (UNRES, ("node(s) were unschedulable",))
