"""``filtering.find_feasible`` at the rules the mutation run found untested: nominated pods
on nodes a PreFilter node-name result narrows to, the two-pass check when a cross-node
filter takes the node-by-node path, and the status of the nodes PreFilter left out.

Expected answers come from upstream ``pkg/scheduler/schedule_one.go``
(``findNodesThatFitPod``: only PreFilter's nodes are filtered, the others get one
``UnschedulableAndUnresolvable`` "node(s) didn't satisfy plugin(s) [...]" status),
``framework/runtime/framework.go`` (``RunPreFilterPlugins`` returns the plugins that
narrowed the nodes, kept as ``Diagnosis.UnschedulablePlugins``;
``RunFilterPluginsWithNominatedPods`` adds nominees of priority >= the pod's) and
DefaultPreemption's ``PodEligibleToPreemptOthers``.
"""

from __future__ import annotations

from builders import cluster_of, node, pod

from kubepreempt.decide import PREEMPT, SCHEDULED, UNSCHEDULABLE, schedule
from kubepreempt.scheduler.cycle import schedule_one
from kubepreempt.scheduler.framework import Code
from kubepreempt.scheduler.queue.events import NODE_ADD, ClusterEvent
from kubepreempt.scheduler.queue.hints import worth_requeuing
from kubepreempt.scheduler.scheduler import Scheduler

DELETED = {"deletionTimestamp": "2026-01-01T00:00:00Z"}
PREEMPTED = {"conditions": [{"type": "DisruptionTarget", "status": "True",
                             "reason": "PreemptionByScheduler"}]}


def by_name(*names: str) -> dict:
    """Required node affinity ``matchFields metadata.name In names``: NodeAffinity's
    PreFilter returns exactly these node names (``PreFilterResult.NodeNames``)."""
    return {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": list(names)}]}]}}}}


def nominated(name: str, cpu: str, node_name: str, priority: int) -> dict:
    """A pending pod nominated to ``node_name`` (status.nominatedNodeName)."""
    return pod(name, cpu, priority=priority, status_extra={"nominatedNodeName": node_name})


def test_a_nominee_on_a_prefilter_node_is_counted_there_and_nowhere_else() -> None:
    """PreFilter narrows to n1 and n2. n1 (4 CPUs) holds a nominee of higher priority
    asking 1 CPU: with it added (``addGENominatedPods``) the 2-CPU pod still fits, so n1
    is feasible. n2 is full. n3, outside PreFilter's nodes, holds a nominee too and has
    room, but it is never filtered: it keeps the absent-node status. The pod goes to n1.

    Kills ``find_feasible``'s subset of nominated nodes to PreFilter's (the mask replaced,
    or ``in`` turned to ``not in``)."""
    c = cluster_of(node("n1", cpu="4"), node("n2", cpu="2"), node("n3", cpu="8"),
                   pod("busy", "2", node_name="n2", priority=100),
                   nominated("vip1", "1", "n1", 100), nominated("vip3", "1", "n3", 100),
                   pod("p", "2", priority=10, spec_extra=by_name("n1", "n2")))
    sched = Scheduler(c)
    outcome = sched.find_feasible(c.pending["default/p"])
    assert outcome.feasible.tolist() == [0]
    assert outcome.statuses[2].reasons == ("node(s) didn't satisfy plugin(s) [NodeAffinity]",)
    assert outcome.statuses[1].reasons == ("Insufficient cpu",)
    d = schedule(c, "default/p")
    assert (d.result, d.node) == (SCHEDULED, "n1")


def test_a_nominee_that_takes_the_room_rejects_the_node_on_the_node_by_node_path() -> None:
    """The pod carries a required anti-affinity term (to pods nobody runs), so
    InterPodAffinity filters it and the filters are not all node-local: every node is
    filtered afresh, and a node holding a counting nominee gets the two-pass check one by
    one. n1 (2 CPUs, empty) holds a higher-priority nominee asking 2 CPUs: with it added
    the 1-CPU pod does not fit (pass 1 of ``RunFilterPluginsWithNominatedPods``), so n1
    is rejected although it is empty. n3 (4 CPUs) holds a 1-CPU nominee and still has
    room: it passes both passes and is feasible, next to n2 (2 CPUs, 1 used). Scoring
    ignores nominees, so the emptier n3 wins (LeastAllocated, BalancedAllocation).

    Kills ``alive[special] = True`` (a nominee's node also passed without its nominees)
    and the mutants that drop a node passing the node-by-node check."""
    anti = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "nobody"}},
         "topologyKey": "kubernetes.io/hostname"}]}}}
    c = cluster_of(node("n1", cpu="2"), node("n2", cpu="2"), node("n3", cpu="4"),
                   pod("half", "1", node_name="n2", priority=100),
                   nominated("vip", "2", "n1", 100), nominated("vip3", "1", "n3", 100),
                   pod("p", "1", priority=10, spec_extra=anti))
    outcome = Scheduler(c).find_feasible(c.pending["default/p"])
    assert outcome.feasible.tolist() == [1, 2]
    assert outcome.statuses[0].reasons == ("Insufficient cpu",)
    assert 2 not in outcome.statuses
    d = schedule(c, "default/p")
    assert (d.result, d.node) == (SCHEDULED, "n3")


def test_nodes_left_out_by_prefilter_are_unresolvable_so_a_nominee_there_preempts_again() -> None:
    """The pod was nominated to n1, but its affinity now names only n2: n1 is left out by
    PreFilter and gets ``UnschedulableAndUnresolvable``. ``PodEligibleToPreemptOthers``
    then lets the pod preempt again without waiting for the terminating lower-priority
    victim on n1; on n2 it preempts ``low``.

    Kills ``absent_status``'s code set to anything but UnschedulableAndUnresolvable."""
    c = cluster_of(node("n1", cpu="2"), node("n2", cpu="2"),
                   pod("dying", "1", node_name="n1", priority=1, meta_extra=DELETED,
                       status_extra=PREEMPTED),
                   pod("low", "2", node_name="n2", priority=1),
                   pod("p", "2", priority=10, spec_extra=by_name("n2"),
                       status_extra={"nominatedNodeName": "n1"}))
    outcome = Scheduler(c).find_feasible(c.pending["default/p"])
    assert outcome.statuses[0].code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    d = schedule(c, "default/p")
    assert (d.result, d.node, d.victims) == (PREEMPT, "n2", ["default/low"])


def test_prefilter_narrowing_counts_nodeaffinity_among_the_rejecting_plugins() -> None:
    """PreFilter narrows to n1 and n3 (n3 does not exist yet); n1 is too small, n2 is left
    out. Upstream's ``Diagnosis.UnschedulablePlugins`` is the PreFilter plugins that
    returned node names (NodeAffinity) plus the filters that rejected a node
    (NodeResourcesFit). So adding node n3, even one too small for the pod, requeues it:
    NodeAffinity's hint (``isSchedulableAfterNodeChange``) says Queue for an added node
    that matches the required affinity.

    Kills ``absent_status``'s plugin label set to anything but NodeAffinity."""
    c = cluster_of(node("n1", cpu="1"), node("n2", cpu="8"),
                   pod("p", "2", priority=10, spec_extra=by_name("n1", "n3")))
    target = c.pending["default/p"]
    cycle = schedule_one(Scheduler(c), target)
    assert cycle.result == UNSCHEDULABLE
    assert cycle.unschedulable_plugins == {"NodeAffinity", "NodeResourcesFit"}
    # FitError.Error(): the filter reasons, sorted as strings, before PostFilter's message
    assert cycle.message.startswith("0/2 nodes are available: 1 Insufficient cpu, 1 node(s) "
                                    "didn't satisfy plugin(s) [NodeAffinity]. ")
    small = cluster_of(node("n3", cpu="1")).nodes[0]
    assert worth_requeuing(target, cycle.unschedulable_plugins,
                           ClusterEvent(NODE_ADD, node=small), lambda ns: {}) is True
