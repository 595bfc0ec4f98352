"""Cluster Autoscaler scale-down: the drainability rules, PodDisruptionBudgets and the
room check, each expected answer worked out from kubernetes/autoscaler
cluster-autoscaler-release-1.37 (the function is named in each test)."""

from __future__ import annotations

import pytest
from builders.autoscaler import SCALE_DOWN, bare, group_node, run
from builders.autoscaler_drain import DISABLED, owned_pod, pdb_with_status, plain_node, scale_downs
from builders.controllers import deployment


def removed(text: str, **options) -> int:
    return run(text, **options).metrics["autoscaler"]["nodesRemoved"]


def web(annotations: str = "") -> str:
    """A one-replica Deployment of 500m pods (its ReplicaSet has spec.replicas 1)."""
    text = deployment("web", 1, "mid").replace('cpu: "1"', 'cpu: "500m"')
    if annotations:
        text = text.replace("annotations: {kubepreempt.io/exit-after-signal",
                            f"annotations: {{{annotations}, kubepreempt.io/exit-after-signal")
    return text


# ---- simulator/drainability/rules: rules.Default ----

def test_min_replica_count_is_not_checked_without_skip_nodes_with_custom_controller_pods(
        ) -> None:
    """``rules.Default`` adds ``replicacount.New(MinReplicaCount)`` with
    ``skip: !SkipNodesWithCustomControllerPods``: with the flag false a ReplicaSet of 1
    replica under ``--min-replica-count 2`` does not block, and n2 (web's 0.5 CPU fits
    on n1) goes; with the flag true it blocks (``MinReplicasReached``)."""
    assert removed(SCALE_DOWN + web(), min_replica_count=2,
                   skip_nodes_with_custom_controller_pods=False) == 1
    assert removed(SCALE_DOWN + web(), min_replica_count=2) == 0


def test_min_replica_count_blocks_a_safe_to_evict_pod_too() -> None:
    """In ``rules.Default`` the replicacount rule comes before the interrupting
    ``safetoevict`` rule, and ``Rules.Drainable`` returns the first outcome that is not
    undefined: a ``safe-to-evict: "true"`` pod of a 1-replica ReplicaSet still blocks
    under ``--min-replica-count 2``; at the default 0 it moves."""
    text = SCALE_DOWN + web('cluster-autoscaler.kubernetes.io/safe-to-evict: "true"')
    assert removed(text, min_replica_count=2) == 0
    assert removed(text) == 1


@pytest.mark.parametrize(("value", "nodes_removed"), [("false", 0), ("FALSE", 1), ("no", 1)])
def test_not_safe_to_evict_annotation_is_the_exact_string_false(
        value: str, nodes_removed: int) -> None:
    """``notsafetoevict.Rule`` blocks when ``drain.HasNotSafeToEvictAnnotation``:
    ``pod.GetAnnotations()[PodSafeToEvictKey] == "false"`` (exactly). n2's ReplicaSet pod
    (200m, fits on n1) blocks only with ``"false"``."""
    ann = f'cluster-autoscaler.kubernetes.io/safe-to-evict: "{value}"'
    assert removed(SCALE_DOWN + owned_pod("p", "n2", annotations=ann)) == nodes_removed


def test_a_daemon_pod_does_not_end_the_check_of_the_node_s_other_pods() -> None:
    """``GetPodsToMove`` asks the rules about every pod of the node: the daemon pod
    (``daemonset`` rule: DrainOk) is skipped, the bare pod after it is ``NotReplicated``
    and blocks, so n2 stays."""
    daemon = owned_pod("d", "n2", owner="DaemonSet", labels="{app: agent}")
    assert removed(SCALE_DOWN + daemon + owned_pod("p", "n2", owner="")) == 0
    assert removed(SCALE_DOWN + daemon) == 1


def test_an_expendable_pod_does_not_end_the_check_of_the_node_s_other_pods() -> None:
    """``RunOnce`` leaves expendable pods (below ``--expendable-pods-priority-cutoff``)
    out of the snapshot; the node's other pods are still checked: the bare pod after
    the -20 pod blocks (``NotReplicated``) and n2 stays."""
    cheap = owned_pod("cheap", "n2", owner="", priority=-20, labels="{app: cheap}")
    assert removed(SCALE_DOWN + cheap + owned_pod("p", "n2", owner="")) == 0
    assert removed(SCALE_DOWN + cheap) == 1


# ---- simulator/cluster.go findPlaceFor ----

def test_a_pod_that_fits_on_no_other_node_blocks_even_if_its_own_node_has_room() -> None:
    """n1 holds 1.8 CPU (0.2 free); n2 holds web's 500m pod (utilization 0.25). The
    removal simulation places n2's pods on the other nodes only (``findPlaceFor``
    skips the node being removed): none has room, ``NoPlaceToMovePods``, n2 stays.
    With n1 at 1.5 CPU the pod fits there and n2 goes."""
    pod = owned_pod("p", "n2", cpu="500m")
    tight = group_node("n1") + group_node("n2") + bare("big", "1800m", 0, node="n1")
    assert removed(tight + pod) == 0
    assert removed(SCALE_DOWN + pod) == 1


# ---- PodDisruptionBudgets: rules/pdb and planner.categorizeNodes ----

THREE = (group_node("n1") + group_node("n2") + group_node("n3")
         + bare("big", "1", 0, node="n1"))


def test_pdb_rule_reads_the_budget_as_it_was_before_the_node() -> None:
    """``pdb.Rule.Drainable`` blocks a pod only when a matching PDB has
    ``DisruptionsAllowed < 1``; the tracker is lowered by ``RemovePods`` once the node
    is found removable (``Planner.categorizeNodes``), not pod by pod. n2 holds two pods
    of one PDB allowing 1 disruption: each sees 1, n2 is removable (risky) and goes at
    600."""
    text = (SCALE_DOWN + owned_pod("a", "n2") + owned_pod("b", "n2")
            + pdb_with_status("web", 1))
    assert scale_downs(run(text, until=1200)) == [(600.0, "n2")]


def test_pdb_with_no_disruption_allowed_blocks() -> None:
    """``pdb.Rule``: ``DisruptionsAllowed`` 0 -> ``NotEnoughPdb``, n2 stays."""
    assert removed(SCALE_DOWN + owned_pod("a", "n2") + pdb_with_status("web", 0)) == 0


def test_pdb_does_not_hold_back_a_safe_to_evict_pod() -> None:
    """The ``safetoevict`` rule returns DrainOk before the pdb rule is reached
    (``Rules.Drainable`` stops at the first defined outcome): a ``safe-to-evict:
    "true"`` pod moves although its PDB allows no disruption."""
    ann = 'cluster-autoscaler.kubernetes.io/safe-to-evict: "true"'
    assert removed(SCALE_DOWN + owned_pod("a", "n2", annotations=ann)
                   + pdb_with_status("web", 0)) == 1


def test_pdb_budget_is_lowered_by_one_per_pod_of_a_removable_node() -> None:
    """PDB allowing 1; n2 and n3 hold one pod of it each. ``categorizeNodes`` takes n2
    first: removable, ``RemovePods`` lowers the budget to 0, so n3's pod is blocked
    (``NotEnoughPdb``) in that pass and n3 is not unneeded. n2 goes at 600; from the
    scan at 610 (n2 being deleted, the given status 1 read afresh) n3 is unneeded, so it
    goes at 1210, not at 610."""
    text = THREE + owned_pod("a", "n2") + owned_pod("b", "n3") + pdb_with_status("web", 1)
    assert scale_downs(run(text, until=1800)) == [(600.0, "n2"), (1210.0, "n3")]


def test_pdb_budget_is_lowered_by_the_number_of_pods_moved() -> None:
    """PDB allowing 2; n2 holds one pod of it, n3 two. n2 is removable and lowers the
    budget by 1 (to 1); n3's pods each see 1 (>= 1), so n3 is unneeded in the same pass:
    both unneeded from 0, n2 goes at 600 and n3 at the next scan, 610 (one non-empty
    node per loop)."""
    text = (THREE + owned_pod("a", "n2") + owned_pod("b", "n3") + owned_pod("c", "n3")
            + pdb_with_status("web", 2))
    assert scale_downs(run(text, until=1800)) == [(600.0, "n2"), (610.0, "n3")]


# ---- core/static_autoscaler.go isScaleDownInCooldown ----

def test_scale_down_resumes_exactly_at_the_end_of_the_delay_after_add() -> None:
    """``isScaleDownInCooldown``: ``lastScaleUpTime.Add(ScaleDownDelayAfterAdd)
    .After(currentTime)``, false at equality. p (3 CPU) fits only a new node of group
    ``big`` (4-CPU nodes): scale-up at 0. n2 (empty, group ``pool``) may go as soon as
    the cooldown ends: with ``--scale-down-unneeded-time 0`` it goes at the scan at
    600 = 0 + 10 min."""
    text = (group_node("n1") + group_node("n2") + bare("full", "2", 0, node="n1")
            + group_node("b1", cpu=4, group="big", hi="2") + bare("fullb", "4", 0, node="b1")
            + bare("p", "3", 0))
    r = run(text, until=1200, scale_down_unneeded_time=0)
    assert r.metrics["autoscaler"]["nodesAdded"] == 1
    assert scale_downs(r) == [(600.0, "n2")]


# ---- the candidates: planner.categorizeNodes over the scale-down candidates ----

def test_a_node_in_no_group_is_passed_over_not_the_end_of_the_scan() -> None:
    """Only nodes of a node group are scale-down candidates (``NodeGroupForNode``); a0,
    in none and first by name, is skipped and n2 (web's pod fits on n1) still goes."""
    assert removed(plain_node("a0") + SCALE_DOWN + owned_pod("p", "n2")) == 1


def test_a_scale_down_disabled_node_is_passed_over_not_the_end_of_the_scan() -> None:
    """``eligibility.Checker``: a node annotated ``scale-down-disabled: "true"`` is not a
    candidate; n1 (first by name) carries it, n2 is still checked and goes."""
    text = (group_node("n1", extra_ann=DISABLED) + group_node("n2")
            + bare("big", "1500m", 0, node="n1") + owned_pod("p", "n2"))
    assert removed(text) == 1


def test_an_unremovable_node_is_passed_over_not_the_end_of_the_scan() -> None:
    """n1 (0.5 CPU bare pod: utilization 0.25 but ``NotReplicated``) is unremovable;
    ``categorizeNodes`` goes on to n2, whose pod fits on n1: n2 goes."""
    text = (group_node("n1") + group_node("n2") + bare("small", "500m", 0, node="n1")
            + owned_pod("p", "n2"))
    assert scale_downs(run(text, until=1200)) == [(600.0, "n2")]


def test_a_node_being_deleted_is_not_a_candidate_again() -> None:
    """With ``--scale-down-unneeded-time 0`` n2 goes at the first scan; its pod takes
    60 s to exit. Nodes under deletion are left out of the candidates
    (``filterOutOngoingDeletions``), so the scans at 10..50 do not start its removal
    again: one scale-down, one node removed."""
    pod = owned_pod("p", "n2", annotations='kubepreempt.io/exit-after-signal: "60s"')
    r = run(SCALE_DOWN + pod, until=600, scale_down_unneeded_time=0)
    assert scale_downs(r) == [(0.0, "n2")]
    assert r.metrics["autoscaler"]["nodesRemoved"] == 1


def test_a_removable_node_is_no_destination_for_the_next_candidates() -> None:
    """``categorizeNodes`` deletes each removable node from ``podDestinations``. n1
    (scale-down disabled) is full until its pod ends at 605; n2 and n3 hold 600m each.
    n2's pod fits on n3, so n2 is removable and no destination: n3's pod fits nowhere,
    n3 is not unneeded. n2 goes at 600; from 610 (n1 free) n3 is unneeded and goes at
    1210."""
    big = bare("big", "1800m", 0, node="n1").replace(
        "annotations: {}", 'annotations: {kubepreempt.io/duration: "605s"}')
    text = (group_node("n1", extra_ann=DISABLED) + group_node("n2") + group_node("n3")
            + big + owned_pod("a", "n2", cpu="600m") + owned_pod("b", "n3", cpu="600m"))
    assert scale_downs(run(text, until=1800)) == [(600.0, "n2"), (1210.0, "n3")]


# ---- core/scaledown/eligibility and unneeded.Nodes ----

def test_an_empty_node_is_underutilized_at_threshold_zero() -> None:
    """``isNodeAtOrBelowUtilizationThreshold`` (release-1.37: ``Utilization >
    threshold`` -> not underutilized; eligibility_test "only daemonsets pods on this node
    (threshold=0)"): at ``--scale-down-utilization-threshold 0`` an empty node (0 <= 0)
    is underutilized and goes; a node at 0.1 is not."""
    base = group_node("n1") + group_node("n2") + bare("big", "1500m", 0, node="n1")
    assert removed(base, scale_down_utilization_threshold=0) == 1
    assert removed(base + owned_pod("p", "n2"), scale_down_utilization_threshold=0) == 0


def test_a_cordoned_node_is_a_candidate_and_no_destination() -> None:
    """A cordoned (``spec.unschedulable``) node is still a scale-down candidate: the
    eligibility checks look at the ToBeDeleted taint, the scale-down-disabled
    annotation and readiness, not at the cordon; the scheduler framework's
    NodeUnschedulable filter keeps it from being a destination. Cordoned n2's pod fits
    on n1: n2 goes at 600."""
    cordoned = group_node("n2").replace("status:", "spec: {unschedulable: true}\nstatus:")
    text = group_node("n1") + cordoned + bare("big", "1500m", 0, node="n1") \
        + owned_pod("p", "n2")
    assert scale_downs(run(text, until=1200)) == [(600.0, "n2")]


@pytest.mark.parametrize(("lo", "nodes_removed"), [("1", 2), ("2", 1)])
def test_the_group_minimum_counts_the_nodes_removed_before(lo: str,
                                                           nodes_removed: int) -> None:
    """``unneeded.Nodes.unremovableReason``: ``verifyMinSize`` then
    ``nodeGroupSize[id]--`` for each node taken. Group of 3 (n1 holds a bare pod, n2 and
    n3 empty): at min 1 both empty nodes go (3 -> 1), at min 2 only one."""
    text = (group_node("n1", lo=lo) + group_node("n2", lo=lo) + group_node("n3", lo=lo)
            + bare("big", "1500m", 0, node="n1"))
    assert removed(text) == nodes_removed


def test_nodes_with_only_daemon_or_expendable_pods_are_empty_and_go_together() -> None:
    """``unneeded.Nodes.splitEmptyAndNonEmptyNodes``: a node is empty when it has no pod
    to reschedule; daemon pods are not rescheduled and expendable pods are not in the
    snapshot. n2 holds only a daemon pod, n3 only a -20 pod: both are empty and go
    together at 600 (one non-empty node per loop would take n3 at 610)."""
    daemon = owned_pod("d", "n2", owner="DaemonSet", labels="{app: agent}")
    cheap = owned_pod("cheap", "n3", owner="", priority=-20, labels="{app: cheap}")
    assert scale_downs(run(THREE + daemon + cheap, until=1200)) == [
        (600.0, "n2"), (600.0, "n3")]
