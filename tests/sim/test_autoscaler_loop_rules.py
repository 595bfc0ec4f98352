"""Cluster Autoscaler's loop (``StaticAutoscaler.RunOnce``) and its scale-up pass, each
expected answer worked out from kubernetes/autoscaler cluster-autoscaler-release-1.37
(the function is named in each test)."""

from __future__ import annotations

from builders.autoscaler import bare, group_node, run
from builders.autoscaler_drain import scale_downs
from builders.autoscaler_scale_up import pod, scale_ups, sized_node

# n2 (empty, group pool, min 1) is unneeded from the first scan; p (3 CPU) fits only a new
# node of group big (4-CPU nodes), so the first scan scales up.
COOLDOWN = (group_node("n1") + group_node("n2") + bare("full", "2", 0, node="n1")
            + group_node("b1", cpu=4, group="big", hi="2") + bare("fullb", "4", 0, node="b1")
            + bare("p", "3", 0))


def test_unneeded_time_runs_through_the_delay_after_add() -> None:
    """``RunOnce`` calls ``scaleDown`` after a successful scale-up too (release-1.34,
    "Remove exit after scale-up is performed"), and ``scaleDown`` runs the planner's
    ``UpdateClusterState`` before it asks ``isScaleDownInCooldown``: n2 is unneeded from
    the scan at 0, the scale-up's. The cooldown ends at 600 (``After`` is false at
    equality) and n2 has been unneeded for 600 s by then (``RemovableAt``): it goes at
    600, not 600 s after the cooldown."""
    r = run(COOLDOWN, until=1500)
    assert scale_ups(r) == [(0.0, "group big: +1 node(s) for 1 pod(s)")]
    assert scale_downs(r) == [(600.0, "n2")]


def test_scale_down_runs_in_the_loop_of_a_scale_up() -> None:
    """``RunOnce`` no longer returns after a successful scale-up (release-1.34); with
    ``--scale-down-delay-after-add 0`` (``lastScaleUpTime.Add(0).After(now)`` is false)
    and ``--scale-down-unneeded-time 0`` the scan at 0 both scales up and removes n2."""
    r = run(COOLDOWN, until=100, scale_down_delay_after_add=0, scale_down_unneeded_time=0)
    assert scale_ups(r) == [(0.0, "group big: +1 node(s) for 1 pod(s)")]
    assert scale_downs(r) == [(0.0, "n2")]


def test_a_pod_fitting_an_upcoming_node_does_not_end_the_filter() -> None:
    """``filterOutSchedulable`` runs over every unschedulable pod on a snapshot with the
    upcoming nodes in it and keeps the pods that fit nowhere. p1 (1.5 CPU) gets a node of
    group a at 0; p2 (1.5 CPU, arriving at 15) fits neither a1 (full) nor the upcoming node
    p1 fills: the scan at 20 passes over p1 and scales up for p2."""
    text = (sized_node("a1", "a", "2", "8Gi") + pod("fa", "2", node="a1")
            + bare("p1", "1500m", 0) + bare("p2", "1500m", 0, arrival="15"))
    assert scale_ups(run(text, until=50)) == [
        (0.0, "group a: +1 node(s) for 1 pod(s)"), (20.0, "group a: +1 node(s) for 1 pod(s)")]


def test_a_group_at_its_maximum_is_passed_over() -> None:
    """``ScaleUp`` / ``computeExpansionOption``: a group whose target size is at its max
    (``MaxSize() <= currentTargetSize``) is skipped, "max limit reached", and the groups
    after it are still options. a (max 1) is full at one node; b (max 3) gets the node."""
    text = (sized_node("a1", "a", "2", "8Gi", hi=1) + pod("fa", "2", node="a1")
            + sized_node("b1", "b", "2", "8Gi") + pod("fb", "2", node="b1") + pod("p", "1"))
    assert scale_ups(run(text, until=30)) == [(0.0, "group b: +1 node(s) for 1 pod(s)")]


def test_a_scale_up_event_names_no_pod() -> None:
    """A scale-up is about a node group, not a pod: its timeline entry's ``pod`` is the
    empty string, as for every node event (``Event.pod`` is a string)."""
    text = sized_node("a1", "a", "2", "8Gi") + pod("fa", "2", node="a1") + pod("p", "1")
    ups = [e.to_json() for e in run(text, until=30).events if e.type == "scale-up"]
    assert [(e["pod"], e["node"]) for e in ups] == [("", None)]


def test_the_delay_after_add_alone_does_not_keep_the_loop_awake() -> None:
    """With no node unneeded and nothing upcoming, a scan finds nothing to do whether or
    not the delay after add is running (the unneeded nodes are tracked through it), so
    the loop sleeps (module docstring): the run handles as many events with a 10-minute
    delay as with none. p gets a node at 0; a-1 (p, bare, not movable) and a1 stay."""
    text = sized_node("a1", "a", "2", "8Gi") + pod("fa", "2", node="a1") + pod("p", "1")
    counts = [run(text, until=900, scale_down_delay_after_add=d).processed for d in (0, 600)]
    assert counts[0] == counts[1]
