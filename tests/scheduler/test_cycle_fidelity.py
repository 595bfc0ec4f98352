"""The scheduling cycle at its edges, with expected answers worked out from upstream.

Messages follow ``FitError.Error()`` (``pkg/scheduler/framework/types.go``) and
``RunPostFilterPlugins`` (``framework/runtime/framework.go``) of kube-scheduler 1.36: the
default profile's PostFilter plugins are DynamicResources then DefaultPreemption
(``apis/config/v1/default_plugins.go``); for a pod without resource claims the first says
"no new claims to deallocate" and the reasons are joined with ", ".
"""

from __future__ import annotations

from builders import cluster_of, node, pdb, pod

from kubepreempt.decide import IGNORED, PREEMPT, SCHEDULED, SKIPPED, UNSCHEDULABLE, schedule

NOW = "2026-01-01T00:00:00Z"
DELETED = {"deletionTimestamp": "2026-01-01T00:00:00Z"}
PREEMPTED_CONDITION = {"conditions": [{"type": "DisruptionTarget", "status": "True",
                                       "reason": "PreemptionByScheduler"}]}


# ---- item 1: the FailedScheduling message, word for word ------------------------------

def test_preempting_pod_carries_the_filter_message_only() -> None:
    """DefaultPreemption succeeds: RunPostFilterPlugins returns its Success status at once,
    so PostFilterMsg is empty and the condition shows the filter histogram alone."""
    c = cluster_of(node("n1", cpu="1"), pod("low", "1", node_name="n1", priority=0),
                   pod("new", "1", priority=10))
    d = schedule(c, "default/new")
    assert (d.result, d.node, d.victims) == (PREEMPT, "n1", ["default/low"])
    assert d.message == "0/1 nodes are available: 1 Insufficient cpu."
    assert d.to_json()["message"] == d.message


def test_unschedulable_message_joins_both_post_filter_reasons() -> None:
    c = cluster_of(node("n1", cpu="1"), node("n2", cpu="4", taints=[
        {"key": "k", "value": "v", "effect": "NoSchedule"}]),
        pod("peer", "1", node_name="n1", priority=10), pod("new", "1", priority=10))
    d = schedule(c, "default/new")
    assert d.result == UNSCHEDULABLE
    assert d.message == (
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s). "
        "no new claims to deallocate, preemption: 0/2 nodes are available: "
        "1 No preemption victims found for incoming pod, "
        "1 Preemption is not helpful for scheduling.")


def test_prefilter_rejection_stops_before_the_dra_prefilter() -> None:
    """NodeAffinity's PreFilter returns UnschedulableAndUnresolvable for conflicting
    node-name terms; RunPreFilterPlugins stops there, so DynamicResources' PreFilter never
    writes its state. Its PostFilter then fails reading CycleState (``ErrNotFound``,
    "not found"), an Error that ends RunPostFilterPlugins before DefaultPreemption."""
    terms = [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]},
                              {"key": "metadata.name", "operator": "In", "values": ["n2"]}]}]
    affinity = {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                                              {"nodeSelectorTerms": terms}}}}
    c = cluster_of(node("n1"), node("n2"), pod("low", "1", node_name="n1", priority=0),
                   pod("new", "1", priority=10, spec_extra=affinity))
    d = schedule(c, "default/new")
    assert d.result == UNSCHEDULABLE
    assert d.message == "0/2 nodes are available: pod affinity terms conflict. not found"
    assert d.preemption is None


def test_no_nodes_at_all() -> None:
    """``ErrNoNodesAvailable``: the cycle fails before PreFilter; no PostFilter runs."""
    d = schedule(cluster_of(pod("new", "1", priority=10)), "default/new")
    assert (d.result, d.message, d.preemption) == (
        UNSCHEDULABLE, "no nodes available to schedule pods", None)


def test_preemption_switched_off_keeps_the_dra_reason() -> None:
    c = cluster_of(node("n1", cpu="1"), pod("low", "1", node_name="n1", priority=0),
                   pod("new", "1", priority=10))
    d = schedule(c, "default/new", preemption=False)
    assert d.result == UNSCHEDULABLE
    assert d.message == "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate"


# ---- item 2: pods kube-scheduler does not touch ----------------------------------------

def test_pod_of_another_scheduler_is_ignored() -> None:
    c = cluster_of(node("n1"), pod("other", "1", spec_extra={"schedulerName": "batch"}))
    d = schedule(c, "default/other")
    assert (d.result, d.node) == (IGNORED, None)
    assert '"batch"' in d.message


def test_another_schedulers_nomination_does_not_count() -> None:
    """``responsibleForPod``: kube-scheduler never queues that pod, so its
    nominatedNodeName reserves nothing in this scheduler's nominator."""
    nominee = pod("theirs", "2", priority=100, spec_extra={"schedulerName": "batch"},
                  status_extra={"nominatedNodeName": "n1"})
    c = cluster_of(node("n1", cpu="2"), nominee, pod("new", "1", priority=10))
    d = schedule(c, "default/new")
    assert (d.result, d.node) == (SCHEDULED, "n1")
    # The same pod under the default scheduler holds the node.
    mine = pod("mine", "2", priority=100, status_extra={"nominatedNodeName": "n1"})
    c = cluster_of(node("n1", cpu="2"), mine, pod("new", "1", priority=10))
    assert schedule(c, "default/new").result == UNSCHEDULABLE


def test_pending_pod_being_deleted_is_skipped() -> None:
    c = cluster_of(node("n1"), pod("gone", "1", meta_extra=DELETED))
    d = schedule(c, "default/gone")
    assert (d.result, d.node) == (SKIPPED, None)
    assert d.message == "skip schedule deleting pod: default/gone"


# ---- item 8: rules a mutation check found unguarded -------------------------------------

def test_nominee_of_equal_priority_counts_as_running() -> None:
    """``addNominatedPods``: nominees with priority >= the pod's are added (equal too)."""
    nominee = pod("first", "2", priority=10, status_extra={"nominatedNodeName": "n1"})
    c = cluster_of(node("n1", cpu="2"), nominee, pod("new", "1", priority=10))
    d = schedule(c, "default/new")
    assert (d.result, d.node) == (UNSCHEDULABLE, None)
    assert d.message.startswith("0/1 nodes are available: 1 Insufficient cpu.")
    # One priority step lower and the nominee no longer counts.
    nominee = pod("first", "2", priority=9, status_extra={"nominatedNodeName": "n1"})
    c = cluster_of(node("n1", cpu="2"), nominee, pod("new", "1", priority=10))
    assert schedule(c, "default/new").node == "n1"


def test_second_pass_without_nominees_is_required() -> None:
    """The pod's required affinity is satisfied only by a nominee (not running yet):
    pass 1 (nominee added) passes, pass 2 (without it) fails, so the node is infeasible."""
    affinity = {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "db"}},
         "topologyKey": "kubernetes.io/hostname"}]}}}
    db = pod("db", "1", priority=100, labels={"app": "db"},
             status_extra={"nominatedNodeName": "n1"})
    c = cluster_of(node("n1"), db, pod("web", "1", priority=10, labels={"app": "web"},
                                       spec_extra=affinity))
    d = schedule(c, "default/web")
    assert (d.result, d.node) == (UNSCHEDULABLE, None)
    assert "1 node(s) didn't match pod affinity rules" in d.message


def test_pdb_violating_pods_are_reprieved_before_more_important_ones() -> None:
    """``SelectVictimsOnNode`` reprieves PDB-violating pods first, then the rest, each
    group most important first. Node: 3 cpu full of a (p0, PDB, no budget), b (p1), c (p2),
    1 cpu each; the pod needs 2. Reprieve a (fits: 1+2), then c (2+2 > 3: victim), then b
    (victim). Importance order alone would keep c and evict b and a (a PDB violation)."""
    c = cluster_of(node("n1", cpu="3"), pdb("guard", {"app": "a"}, allowed=0),
                   pod("a", "1", node_name="n1", priority=0, labels={"app": "a"}, start=NOW),
                   pod("b", "1", node_name="n1", priority=1, start=NOW),
                   pod("c", "1", node_name="n1", priority=2, start=NOW),
                   pod("new", "2", priority=10))
    d = schedule(c, "default/new")
    assert (d.result, sorted(d.victims), d.pdb_violations) == (
        PREEMPT, ["default/b", "default/c"], 0)


def test_terminating_pod_of_equal_priority_does_not_block_preemption() -> None:
    """``PodEligibleToPreemptOthers`` waits only for *lower*-priority pods terminating on
    the nominated node because of preemption."""
    def cluster(term_priority: int):
        return cluster_of(
            node("n1", cpu="2"),
            pod("dying", "1", node_name="n1", priority=term_priority, meta_extra=DELETED,
                status_extra=PREEMPTED_CONDITION),
            pod("low", "1", node_name="n1", priority=0),
            pod("new", "1", priority=10, status_extra={"nominatedNodeName": "n1"}))

    equal = schedule(cluster(10), "default/new")
    assert equal.result == PREEMPT and equal.victims == ["default/low"]
    lower = schedule(cluster(9), "default/new")
    assert lower.result == UNSCHEDULABLE
    assert lower.message.endswith(
        "preemption: not eligible due to a terminating pod on the nominated node.")


def test_fit_error_counts_each_reason_over_every_node() -> None:
    """``FitError.Error()``: every reason of every node's status is counted, so a reason
    shared by statuses that differ otherwise is summed; then sorted as strings."""
    c = cluster_of(node("a", cpu="1", memory="8Gi"), node("b", cpu="1", memory="1Gi"),
                   node("c", cpu="4", memory="1Gi"),
                   pod("new", "2", "2Gi", priority=10))
    d = schedule(c, "default/new", preemption=False)
    assert d.message.startswith("0/3 nodes are available: 2 Insufficient cpu, "
                                "2 Insufficient memory.")


def test_fit_error_message_from_a_plain_mapping() -> None:
    """The same histogram from a plain node -> status mapping as from NodeStatuses."""
    from kubepreempt.scheduler.framework import Code, Status
    from kubepreempt.scheduler.statuses import NodeStatuses, fit_error_message

    cpu = Status(Code.UNSCHEDULABLE, ("Insufficient cpu",), "NodeResourcesFit")
    both = Status(Code.UNSCHEDULABLE, ("Insufficient cpu", "Insufficient memory"),
                  "NodeResourcesFit")
    plain = {0: cpu, 1: both, 2: both}
    packed = NodeStatuses(3)
    for i, st in plain.items():
        packed[i] = st
    want = "0/3 nodes are available: 2 Insufficient memory, 3 Insufficient cpu."
    assert fit_error_message(3, plain) == want
    assert fit_error_message(3, packed) == want
    assert fit_error_message(3, [cpu, both, both]) == want


def test_fewest_victims_decides_when_priorities_and_sums_tie() -> None:
    """``pickOneNodeForPreemption`` step 4. Sums add 2^31 per victim, so they tie only with
    an int32-minimum victim: node a frees one priority-0 pod (sum 2^31); node b needs a
    priority-0 and a priority -2^31 pod (sum 2^31 + 0). Same highest priority, same sum:
    the node with fewer victims, a, wins at "fewest victims"."""
    c = cluster_of(node("a", cpu="3"), node("b", cpu="3"),
                   pod("a1", "3", node_name="a", priority=0),
                   pod("b1", "2", node_name="b", priority=0),
                   pod("b2", "1", node_name="b", priority=-2**31),
                   pod("new", "3", priority=10))
    d = schedule(c, "default/new")
    assert (d.result, d.node, d.victims) == (PREEMPT, "a", ["default/a1"])
    assert d.preemption is not None
    assert d.preemption.decided_by == "fewest victims"
    b = next(x for x in d.preemption.candidates if x.node == "b")
    assert sorted(p.name for p in b.victims) == ["b1", "b2"]


def test_terminating_pod_does_not_block_when_the_nominated_node_is_unresolvable() -> None:
    """``PodEligibleToPreemptOthers``: a lower-priority pod terminating by preemption on
    the nominated node holds the preemptor back, unless that node is now
    UnschedulableAndUnresolvable for it (here: a taint it does not tolerate)."""
    taint = [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]
    objs = [node("n2", cpu="1"),
            pod("dying", "1", node_name="n1", priority=0, meta_extra=DELETED,
                status_extra=PREEMPTED_CONDITION),
            pod("low", "1", node_name="n2", priority=0),
            pod("new", "1", priority=10, status_extra={"nominatedNodeName": "n1"})]
    tainted = schedule(cluster_of(node("n1", cpu="2", taints=taint), *objs), "default/new")
    assert (tainted.result, tainted.node, tainted.victims) == (PREEMPT, "n2", ["default/low"])
    # Without the taint n1 is only short of cpu, and the terminating pod blocks.
    plain = schedule(cluster_of(node("n1", cpu="1"), *objs), "default/new")
    assert plain.result == UNSCHEDULABLE
    assert plain.message.endswith(
        "preemption: not eligible due to a terminating pod on the nominated node.")


def test_candidate_nodes_are_not_reported_as_not_helpful() -> None:
    """Only nodes failing UnschedulableAndUnresolvable get "Preemption is not helpful";
    the bundled example's two candidates are candidates, the tainted GPU node is not."""
    from pathlib import Path

    from kubepreempt.decide import load_cluster

    example = Path(__file__).resolve().parents[2] / "examples" / "basic"
    d = schedule(load_cluster([str(example)], warn=False), "shop/checkout")
    assert {c.node for c in d.preemption.candidates} == {"node-a", "node-b"}
    assert set(d.preemption_statuses) == {"node-gpu"}
    assert d.preemption_statuses["node-gpu"].reasons == (
        "Preemption is not helpful for scheduling",)
