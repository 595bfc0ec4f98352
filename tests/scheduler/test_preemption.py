"""DefaultPreemption: eligibility, candidates, victims with reprieve, PDBs, node pick.

Expected answers are worked out by hand from the seeds (000, 003, 004) and upstream's
``default_preemption_test.go`` cases.
"""

import pytest
from builders import cluster_of, node, pdb, pod, priority_class, reference_preemption

from kubepreempt.decide import schedule
from kubepreempt.scheduler.cycle import schedule_one
from kubepreempt.scheduler.framework import Code
from kubepreempt.scheduler.preemption import Evaluator
from kubepreempt.scheduler.scheduler import Scheduler

T0 = "2026-11-23T08:00:00Z"
T1 = "2026-11-23T09:00:00Z"


@pytest.fixture(autouse=True, params=["fast", "reference"])
def preemption_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every case on both DefaultPreemption paths (the vectorised one and the reference)."""
    if request.param == "reference":
        reference_preemption(monkeypatch)
    return request.param


def test_seed_minimal_victims_example() -> None:
    # 000: capacity 10, pending priority 10 requests 5, running {p0:3, p1:1, p2:5, p3:1}
    # -> only the priority-2 pod is preempted; priorities 1 and 0 keep running.
    c = cluster_of(
        node("n1", cpu="10"),
        pod("p0", "3", node_name="n1", priority=0),
        pod("p1", "1", node_name="n1", priority=1),
        pod("p2", "5", node_name="n1", priority=2),
        pod("p3", "1", node_name="n1", priority=3),
        pod("new", "5", priority=10),
    )
    d = schedule(c, "default/new")
    assert (d.result, d.node, d.victims) == ("preempt", "n1", ["default/p2"])


def test_pod_that_fits_is_scheduled_not_preempting() -> None:
    c = cluster_of(node("n1", cpu="2"), pod("low", "1", node_name="n1", priority=0),
                   pod("new", "1", priority=10))
    d = schedule(c, "default/new")
    assert (d.result, d.node, d.victims) == ("scheduled", "n1", [])


def test_only_lower_priority_pods_are_victims() -> None:
    c = cluster_of(node("n1", cpu="2"), pod("same", "2", node_name="n1", priority=10),
                   pod("new", "1", priority=10))
    d = schedule(c, "default/new")
    assert d.result == "unschedulable"
    assert d.message == ("0/1 nodes are available: 1 Insufficient cpu. no new claims to "
                         "deallocate, preemption: 0/1 nodes are available: 1 No preemption "
                         "victims found for incoming pod.")


def test_preemption_policy_never_does_not_preempt() -> None:
    c = cluster_of(priority_class("np", 100, policy="Never"), node("n1", cpu="1"),
                   pod("low", "1", node_name="n1", priority=0),
                   pod("new", "1", spec_extra={"priorityClassName": "np"}))
    d = schedule(c, "default/new")
    assert d.result == "unschedulable"
    assert d.message.endswith("preemption: not eligible due to preemptionPolicy=Never.")


def test_unresolvable_nodes_are_never_candidates() -> None:
    taint = [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]
    c = cluster_of(node("tainted", cpu="1", taints=taint), node("small", cpu="1"),
                   pod("low1", "1", node_name="tainted", priority=0),
                   pod("hi", "1", node_name="small", priority=100),
                   pod("new", "1", priority=10))
    d = schedule(c, "default/new")
    assert d.result == "unschedulable"
    assert d.message == (
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s). "
        "no new claims to deallocate, preemption: 0/2 nodes are available: "
        "1 No preemption victims found for incoming pod, "
        "1 Preemption is not helpful for scheduling.")


def test_request_beyond_allocatable_makes_the_node_not_helpful() -> None:
    # Upstream fitsRequest: a request above the node's whole allocatable is Unresolvable,
    # so NodeResourcesFit's status is UnschedulableAndUnresolvable and findCandidates never
    # tries the node ("Preemption is not helpful", not "No preemption victims found").
    # "big" can hold the pod's 3 cpu, so it is tried: without its lower-priority pod it
    # still has only 2 free.
    c = cluster_of(node("big", cpu="4"), node("small", cpu="2"),
                   pod("hi", "2", node_name="big", priority=100),
                   pod("low", "1", node_name="big", priority=0),
                   pod("new", "3", priority=10))
    d = schedule(c, "default/new")
    assert d.result == "unschedulable"
    assert (d.statuses["big"].code, d.statuses["small"].code) == (
        Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
    assert d.message == (
        "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, "
        "preemption: 0/2 nodes are available: 1 Insufficient cpu, "
        "1 Preemption is not helpful for scheduling.")


def test_pod_count_is_never_beyond_allocatable() -> None:
    # fitsRequest's "Too many pods" carries no Unresolvable flag, even on a node that
    # allows no pods at all: the node is tried and has no lower-priority pod.
    c = cluster_of(node("none", pods="0"), pod("new", "100m", priority=10))
    d = schedule(c, "default/new")
    assert d.statuses["none"].code == Code.UNSCHEDULABLE
    assert d.message == (
        "0/1 nodes are available: 1 Too many pods. no new claims to deallocate, "
        "preemption: 0/1 nodes are available: "
        "1 No preemption victims found for incoming pod.")


@pytest.mark.parametrize("seed", range(4))
def test_sampled_window_hides_no_status_when_there_is_no_candidate(seed: int) -> None:
    # DryRunPreemption stops early only once it holds a PDB-respecting candidate; with none,
    # every potential node is tried whatever the window (here one node) and reported.
    docs = [node(f"n{i}", cpu="2") for i in range(4)]
    for i in range(4):
        docs += [pod(f"hi{i}", "1", node_name=f"n{i}", priority=100),
                 pod(f"low{i}", "1", node_name=f"n{i}", priority=0)]
    c = cluster_of(*docs, pod("new", "2", priority=10))
    sched = Scheduler(c)
    evaluator = Evaluator(sched, sample=True, seed=seed, min_candidate_percentage=0,
                          min_candidate_absolute=1, now=1e9)
    res = schedule_one(sched, c.pending["default/new"], now=1e9, evaluator=evaluator)
    assert res.message == (
        "0/4 nodes are available: 4 Insufficient cpu. no new claims to deallocate, "
        "preemption: 0/4 nodes are available: 4 Insufficient cpu.")


def test_pdb_violating_pods_are_reprieved_first_and_counted() -> None:
    # Two nodes, each with one low pod of equal priority; the pod on n1 is protected by a
    # PDB with no disruptions allowed -> n2 is chosen (fewest PDB violations first).
    c = cluster_of(
        node("n1", cpu="1"), node("n2", cpu="1"),
        pod("a", "1", node_name="n1", priority=0, labels={"app": "db"}, start=T0),
        pod("b", "1", node_name="n2", priority=5, labels={"app": "web"}, start=T0),
        pdb("db", {"app": "db"}, allowed=0),
        pod("new", "1", priority=10),
    )
    d = schedule(c, "default/new")
    # Without the PDB n1 would win (lower victim priority); with it n2 has 0 violations.
    assert (d.result, d.node, d.victims, d.pdb_violations) == ("preempt", "n2", ["default/b"], 0)


def test_pdb_is_best_effort() -> None:
    c = cluster_of(node("n1", cpu="1"),
                   pod("a", "1", node_name="n1", priority=0, labels={"app": "db"}),
                   pdb("db", {"app": "db"}, allowed=0), pod("new", "1", priority=10))
    d = schedule(c, "default/new")
    assert (d.result, d.victims, d.pdb_violations) == ("preempt", ["default/a"], 1)


def test_pdb_budget_is_consumed_across_victims_of_one_pdb() -> None:
    # One disruption allowed, two matching victims needed: the first (more important)
    # consumes the budget, the second violates it.
    c = cluster_of(node("n1", cpu="2"),
                   pod("a", "1", node_name="n1", priority=1, labels={"app": "db"}),
                   pod("b", "1", node_name="n1", priority=0, labels={"app": "db"}),
                   pdb("db", {"app": "db"}, allowed=1), pod("new", "2", priority=10))
    d = schedule(c, "default/new")
    assert sorted(d.victims) == ["default/a", "default/b"]
    assert d.pdb_violations == 1


def test_pick_lowest_highest_victim_priority() -> None:
    c = cluster_of(node("n1", cpu="1"), node("n2", cpu="1"),
                   pod("a", "1", node_name="n1", priority=3),
                   pod("b", "1", node_name="n2", priority=2), pod("new", "1", priority=10))
    d = schedule(c, "default/new")
    assert (d.node, d.victims) == ("n2", ["default/b"])
    assert d.preemption.decided_by == "lowest highest-victim priority"


def test_pick_smallest_priority_sum() -> None:
    # Same highest priority (5); n1 victims 5+1, n2 victims 5+0 -> n2.
    c = cluster_of(node("n1", cpu="2"), node("n2", cpu="2"),
                   pod("a1", "1", node_name="n1", priority=5),
                   pod("a2", "1", node_name="n1", priority=1),
                   pod("b1", "1", node_name="n2", priority=5),
                   pod("b2", "1", node_name="n2", priority=0),
                   pod("new", "2", priority=10))
    d = schedule(c, "default/new")
    assert d.node == "n2"
    assert d.preemption.decided_by == "smallest sum of victim priorities"


def test_negative_priorities_use_the_int32_offset() -> None:
    # n1: one victim of -10; n2: two victims of -10 and ... sums without offset would be
    # -10 vs -20 (n2 looks "smaller"); upstream adds 2^31 per pod so fewer pods win.
    c = cluster_of(node("n1", cpu="2"), node("n2", cpu="2"),
                   pod("a1", "2", node_name="n1", priority=-10),
                   pod("b1", "1", node_name="n2", priority=-10),
                   pod("b2", "1", node_name="n2", priority=-10),
                   pod("new", "2", priority=10))
    d = schedule(c, "default/new")
    assert (d.node, d.victims) == ("n1", ["default/a1"])
    assert d.preemption.decided_by == "smallest sum of victim priorities"


def test_pick_fewest_victims() -> None:
    # Equal highest priority and equal sums: n1 has one victim of 4, n2 two victims of 2+2
    # (sums with offsets differ, so make them equal without offsets is impossible) ->
    # use priorities 0: n1 one victim, n2 two victims; sums 2^31 vs 2^32 decide first.
    c = cluster_of(node("n1", cpu="2"), node("n2", cpu="2"),
                   pod("a1", "2", node_name="n1", priority=0),
                   pod("b1", "1", node_name="n2", priority=0),
                   pod("b2", "1", node_name="n2", priority=0),
                   pod("new", "2", priority=10))
    d = schedule(c, "default/new")
    assert d.node == "n1"


def test_pick_latest_start_time() -> None:
    c = cluster_of(node("n1", cpu="1"), node("n2", cpu="1"),
                   pod("old", "1", node_name="n1", priority=0, start=T0),
                   pod("young", "1", node_name="n2", priority=0, start=T1),
                   pod("new", "1", priority=10))
    d = schedule(c, "default/new")
    assert (d.node, d.victims) == ("n2", ["default/young"])
    assert d.preemption.decided_by == "latest start time of the highest-priority victims"


def test_final_tie_goes_to_first_node_by_name() -> None:
    c = cluster_of(node("n2", cpu="1"), node("n1", cpu="1"),
                   pod("a", "1", node_name="n1", priority=0, start=T0),
                   pod("b", "1", node_name="n2", priority=0, start=T0),
                   pod("new", "1", priority=10))
    d = schedule(c, "default/new")
    assert d.node == "n1"
    assert d.preemption.decided_by == "first node by name"


def test_best_effort_pods_free_nothing() -> None:
    # The BestEffort pod is reprieved (it requests nothing); only the Burstable one goes.
    c = cluster_of(node("n1", cpu="2"),
                   pod("be", node_name="n1", priority=0),
                   pod("bu", "2", node_name="n1", priority=0),
                   pod("new", "2", priority=10))
    d = schedule(c, "default/new")
    assert d.victims == ["default/bu"]


def test_seed_2gb_example_scheduler_half() -> None:
    # 000: 2GB node; burstable (500MB request, priority 100) and best-effort (priority 100);
    # a priority-200 pod asking 2GB preempts only the burstable pod.
    c = cluster_of(node("n1", cpu="4", memory="2G"),
                   pod("burstable", memory="500M", node_name="n1", priority=100),
                   pod("besteffort", node_name="n1", priority=100),
                   pod("new", memory="2G", priority=200))
    d = schedule(c, "default/new")
    assert (d.result, d.victims) == ("preempt", ["default/burstable"])


def test_pod_count_makes_best_effort_pods_victims() -> None:
    c = cluster_of(node("n1", cpu="4", pods="1"), pod("be", node_name="n1", priority=0),
                   pod("new", priority=10))
    d = schedule(c, "default/new")
    assert d.victims == ["default/be"]


def test_terminating_victim_on_nominated_node_blocks_new_preemption() -> None:
    preempted = {"conditions": [{"type": "DisruptionTarget", "status": "True",
                                 "reason": "PreemptionByScheduler"}]}
    c = cluster_of(
        node("n1", cpu="1"), node("n2", cpu="1"),
        pod("victim", "1", node_name="n1", priority=0, status_extra=preempted,
            meta_extra={"deletionTimestamp": T1}),
        pod("other", "1", node_name="n2", priority=0),
        pod("new", "1", priority=10, status_extra={"nominatedNodeName": "n1"}),
    )
    d = schedule(c, "default/new")
    assert d.result == "unschedulable"
    assert "not eligible due to a terminating pod on the nominated node." in d.message


def test_user_deleted_pod_does_not_block_preemption() -> None:
    c = cluster_of(
        node("n1", cpu="1"), node("n2", cpu="1"),
        pod("deleting", "1", node_name="n1", priority=0, meta_extra={"deletionTimestamp": T1},
            start=T0),
        pod("other", "1", node_name="n2", priority=0, start=T0),
        pod("new", "1", priority=10, status_extra={"nominatedNodeName": "n1"}),
    )
    d = schedule(c, "default/new")
    # Terminating pods still hold resources and may be counted as victims.
    assert d.result == "preempt"
    assert d.node in ("n1", "n2")


def test_nominated_higher_priority_pod_counts_as_running() -> None:
    # n1 has room for one 1-cpu pod, but a priority-20 pod is nominated there.
    c = cluster_of(node("n1", cpu="2"), pod("run", "1", node_name="n1", priority=30),
                   pod("nominee", "1", priority=20, status_extra={"nominatedNodeName": "n1"}),
                   pod("new", "1", priority=10))
    d = schedule(c, "default/new")
    assert d.result == "unschedulable"
    assert d.message.startswith("0/1 nodes are available: 1 Insufficient cpu.")


def test_nominated_lower_priority_pod_is_ignored_and_cleared() -> None:
    c = cluster_of(node("n1", cpu="2"), pod("low", "2", node_name="n1", priority=0),
                   pod("nominee", "1", priority=5, status_extra={"nominatedNodeName": "n1"}),
                   pod("new", "2", priority=10))
    d = schedule(c, "default/new")
    assert (d.result, d.node, d.victims) == ("preempt", "n1", ["default/low"])
    assert d.cleared_nominations == ["default/nominee"]


def test_nominated_node_is_tried_first() -> None:
    # Upstream evaluates a pod's nominated node first and takes it if it passes all
    # filters, even when another node would score higher.
    c = cluster_of(node("busy", cpu="4"), node("empty", cpu="4"),
                   pod("x", "3", node_name="busy", priority=0),
                   pod("new", "1", priority=10, status_extra={"nominatedNodeName": "busy"}))
    d = schedule(c, "default/new")
    assert (d.result, d.node) == ("scheduled", "busy")


def test_affinity_to_lower_priority_pod_prevents_preemption_there() -> None:
    # Documented limitation (003): required pod affinity satisfied only by lower-priority
    # pods on the node -> removing them breaks the affinity -> not a candidate.
    affinity = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "cache"}},
         "topologyKey": "kubernetes.io/hostname"}]}}
    c = cluster_of(node("n1", cpu="1"),
                   pod("cache", "1", node_name="n1", priority=0, labels={"app": "cache"}),
                   pod("new", "1", priority=10, spec_extra={"affinity": affinity}))
    d = schedule(c, "default/new")
    assert d.result == "unschedulable"


def test_scheduling_gated_pod_is_not_scheduled() -> None:
    c = cluster_of(node("n1"), pod("new", "1", spec_extra={"schedulingGates": [{"name": "g"}]}))
    d = schedule(c, "default/new")
    assert (d.result, d.node) == ("unschedulable", None)
    assert d.message == "Scheduling is blocked due to non-empty scheduling gates"


def test_equal_priority_nominee_keeps_its_nomination() -> None:
    # getLowerPriorityNominatedPods clears only nominees of *lower* priority
    # (PodPriority(p) < podPriority). The equal-priority nominee counts as running
    # (addNominatedPods: >=), so n1 needs the victim gone: 2 + 1 + 2 > 4, 1 + 2 <= 4.
    c = cluster_of(node("n1", cpu="4"), pod("low", "2", node_name="n1", priority=0),
                   pod("peer", "1", priority=10, status_extra={"nominatedNodeName": "n1"}),
                   pod("new", "2", priority=10))
    d = schedule(c, "default/new")
    assert (d.result, d.node, d.victims) == ("preempt", "n1", ["default/low"])
    assert d.cleared_nominations == []


def test_equal_priority_nominee_takes_room_the_reprieve_would_give_back() -> None:
    # SelectVictimsOnNode runs the filters with the nominees of equal or higher priority
    # added (addGENominatedPods). n1 (4 cpu): without its lower pods and with the 2-cpu
    # peer nominated there, 2 + 2 <= 4 fits; reprieve most important first: early (1 cpu,
    # started first) 1 + 2 + 2 > 4 -> victim; late (2 cpu) 2 + 2 + 2 > 4 -> victim.
    # Without the peer, early would be reprieved (1 + 2 <= 4). n2's only victim has
    # priority 5, so n1 (highest victim priority 0) wins.
    c = cluster_of(node("n1", cpu="4"), node("n2", cpu="4"),
                   pod("early", "1", node_name="n1", priority=0, start=T0),
                   pod("late", "2", node_name="n1", priority=0, start=T1),
                   pod("mid", "3", node_name="n2", priority=5, start=T0),
                   pod("peer", "2", priority=10, status_extra={"nominatedNodeName": "n1"}),
                   pod("new", "2", priority=10))
    d = schedule(c, "default/new")
    assert (d.result, d.node, sorted(d.victims)) == ("preempt", "n1",
                                                     ["default/early", "default/late"])
    assert d.cleared_nominations == []


def test_higher_priority_nominee_leaves_no_room_even_without_lower_pods() -> None:
    # n1: without its priority-0 pod, the priority-20 nominee (3 cpu) and the new pod
    # (2 cpu) still exceed 4 cpu: not a candidate, with NodeResourcesFit's status. The
    # lower-priority nominee there counts for nothing. n2's priority-5 pod goes instead.
    c = cluster_of(node("n1", cpu="4"), node("n2", cpu="4"),
                   pod("low", "2", node_name="n1", priority=0, start=T0),
                   pod("mid", "3", node_name="n2", priority=5, start=T0),
                   pod("vip", "3", priority=20, status_extra={"nominatedNodeName": "n1"}),
                   pod("small", "1", priority=1, status_extra={"nominatedNodeName": "n1"}),
                   pod("new", "2", priority=10))
    d = schedule(c, "default/new")
    assert (d.result, d.node, d.victims) == ("preempt", "n2", ["default/mid"])
    assert d.preemption_statuses["n1"].reasons == ("Insufficient cpu",)
    assert d.statuses["n1"].reasons == ("Insufficient cpu",)


def test_terminating_victims_on_a_nominee_node_are_counted_again() -> None:
    # After an earlier preemption on n1, its victim "going" is still terminating (it holds
    # its 2 cpu until its grace period ends) and the preemptor "peer" (2 cpu, priority 10)
    # is nominated there. For another priority-10 pod, n1 without its lower pods fits
    # 2 + 2 <= 4; going (started first) is reprieved only if 2 + 2 + 2 <= 4: no, victim;
    # stay: 1 + 2 + 2 > 4, victim. The terminating pod is a victim again (it still holds
    # its resources); n1's victims (priority 0) beat n2's (priority 5).
    preempted = {"conditions": [{"type": "DisruptionTarget", "status": "True",
                                 "reason": "PreemptionByScheduler"}]}
    c = cluster_of(node("n1", cpu="4"), node("n2", cpu="4"),
                   pod("going", "2", node_name="n1", priority=0, start=T0,
                       status_extra=preempted, meta_extra={"deletionTimestamp": T1}),
                   pod("stay", "1", node_name="n1", priority=0, start=T1),
                   pod("mid", "3", node_name="n2", priority=5, start=T0),
                   pod("peer", "2", priority=10, status_extra={"nominatedNodeName": "n1"}),
                   pod("new", "2", priority=10))
    d = schedule(c, "default/new")
    assert (d.result, d.node, sorted(d.victims)) == ("preempt", "n1",
                                                     ["default/going", "default/stay"])


def test_every_pdb_violating_victim_counts_in_the_node_pick() -> None:
    # SelectVictimsOnNode counts numViolatingVictim once per violating victim that is not
    # reprieved; pickOneNodeForPreemption's first criterion is the fewest violations.
    # n1: two violating victims (priority 1) -> 2; n2: one (priority 5) -> 1. With a
    # count of 1 on n1 the tie would go to n1 (lower highest victim priority).
    c = cluster_of(node("n1", cpu="2"), node("n2", cpu="2"),
                   pod("a", "1", node_name="n1", priority=1, labels={"app": "db"}),
                   pod("b", "1", node_name="n1", priority=1, labels={"app": "db"}),
                   pod("c", "2", node_name="n2", priority=5, labels={"app": "db"}),
                   pdb("db", {"app": "db"}, allowed=0), pod("new", "2", priority=10))
    d = schedule(c, "default/new")
    assert (d.result, d.node, d.victims, d.pdb_violations) == ("preempt", "n2", ["default/c"], 1)


def test_every_pdb_covering_a_victim_is_consulted() -> None:
    # filterPodsWithPDBViolation looks at each PDB in turn: one whose selector misses
    # the pod is skipped (continue), the next one that covers it still applies.
    c = cluster_of(node("n1", cpu="1"), node("n2", cpu="1"),
                   pod("guarded", "1", node_name="n1", priority=1, labels={"app": "db"}),
                   pod("free", "1", node_name="n2", priority=5, labels={"app": "web"}),
                   pdb("other", {"app": "cache"}, allowed=0),
                   pdb("db", {"app": "db"}, allowed=0), pod("new", "1", priority=10))
    d = schedule(c, "default/new")
    # n1 would violate a PDB, n2 not: the fewest violations win despite the priorities.
    assert (d.result, d.node, d.victims, d.pdb_violations) == ("preempt", "n2", ["default/free"], 0)


def test_victim_holding_the_host_port_is_preempted() -> None:
    # Removing the lower-priority pod frees its host port (SelectVictimsOnNode removes
    # every lower-priority pod, then runs the filters): NodePorts passes, it is the victim.
    ports = {"containers": [{"name": "c", "image": "x", "ports": [
        {"containerPort": 80, "hostPort": 80}]}]}
    c = cluster_of(node("n1", cpu="4"),
                   pod("web", node_name="n1", priority=0, spec_extra=ports),
                   pod("keep", "1", node_name="n1", priority=20),
                   pod("new", priority=10, spec_extra=ports))
    d = schedule(c, "default/new")
    assert (d.result, d.node, d.victims) == ("preempt", "n1", ["default/web"])


def test_node_without_lower_priority_pods_reports_no_victims() -> None:
    # SelectVictimsOnNode: no pod of lower priority -> UnschedulableAndUnresolvable
    # "No preemption victims found for incoming pod" (the port holder has equal priority).
    ports = {"containers": [{"name": "c", "image": "x", "ports": [
        {"containerPort": 80, "hostPort": 80}]}]}
    c = cluster_of(node("n1", cpu="4"),
                   pod("web", node_name="n1", priority=10, spec_extra=ports),
                   pod("new", priority=10, spec_extra=ports))
    d = schedule(c, "default/new")
    assert d.result == "unschedulable"
    assert d.message.endswith(
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.")
