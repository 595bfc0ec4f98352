"""The PreFilter plugins that returned node names stay among a failed pod's rejecting
plugins even when the names cover every node.

Upstream ``RunPreFilterPlugins`` returns, as its third result, every plugin whose
PreFilterResult is not AllNodes (``pluginsWithNodes``), and ``findNodesThatFitPod`` starts
``Diagnosis.UnschedulablePlugins`` from it before any Filter runs: a node-name result that
leaves no node out still puts NodeAffinity there, so NodeAffinity's queueing hint decides
for added nodes.
"""

from __future__ import annotations

from builders import cluster_of, node, pod

from kubepreempt.scheduler.cycle import UNSCHEDULABLE, schedule_one
from kubepreempt.scheduler.scheduler import Scheduler


def by_name(*names: str) -> dict:
    """Required node affinity ``matchFields metadata.name In names``: NodeAffinity's
    PreFilter returns these node names (``PreFilterResult.NodeNames``)."""
    return {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": list(names)}]}]}}}}


def test_names_covering_every_node_still_count_nodeaffinity() -> None:
    """The pod names n1 and n2 (every node) and fits neither: no node is left out, yet
    the rejecting plugins are NodeResourcesFit and NodeAffinity."""
    c = cluster_of(node("n1", cpu="1"), node("n2", cpu="1"),
                   pod("p", "2", priority=10, spec_extra=by_name("n1", "n2")))
    target = c.pending["default/p"]
    cycle = schedule_one(Scheduler(c), target)
    assert cycle.result == UNSCHEDULABLE
    assert cycle.unschedulable_plugins == {"NodeAffinity", "NodeResourcesFit"}
    assert cycle.message.startswith("0/2 nodes are available: 2 Insufficient cpu. ")


def test_without_a_name_list_nodeaffinity_is_not_counted() -> None:
    """A pod without node affinity: only the filter that rejected the nodes."""
    c = cluster_of(node("n1", cpu="1"), pod("p", "2", priority=10))
    cycle = schedule_one(Scheduler(c), c.pending["default/p"])
    assert cycle.unschedulable_plugins == {"NodeResourcesFit"}
