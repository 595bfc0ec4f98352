"""Victim units (Kubernetes 1.37, GenericWorkload on): the rules a one-line change breaks.

Worked from upstream ``pkg/scheduler/framework/preemption``: ``FilterVictimsWithPDBViolation``
(util.go: a PDB counts only when it is in the pod's namespace and its non-empty selector
matches; a pod in ``status.disruptedPods`` takes nothing; ``pdbsAllowed[i]--`` then
``< 0`` violates), ``GetVictimsOnNode`` / ``getCrossNodesVictims`` (a pod of a
``disruptionMode: all`` PodGroup brings the scheduled pods of *its* group: same namespace,
same group name), and DefaultPreemption's ``SelectVictimsOnNode`` (remove every
lower-priority unit, its pods elsewhere only from the plugins' state; no fit then is the
node's status; reprieve PDB-violating units first, a unit left out adds its violating
pods to ``numViolatingVictim``; the victims sorted by ``MoreImportantVictim``).
"""

from __future__ import annotations

from typing import Any

from builders import cluster_of, node, pdb, pod, reference_preemption
from builders.gang import (
    HIGH,
    LOW,
    NS,
    cluster_and_groups,
    decide,
    member_pod,
    pod_group,
    preemptor,
)

from kubepreempt.scheduler.preemption.victim_units import (
    VictimGroups,
    VictimUnit,
    split_units_by_pdb,
)

ANTI_G = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"labelSelector": {"matchLabels": {"app": "g"}},
     "topologyKey": "kubernetes.io/hostname"}]}}


def test_pdb_split_counts_only_covering_budgets_in_order():
    # Budgets, in order: a (app=a, 0 allowed), b (app=b, 0), c (app=c, 1), d (app=d, 0,
    # d1 already disrupted). Each unit is one pod labelled for one budget, plus one
    # labelled for none. Only the pods that take a budget below zero violate: app=a and
    # app=b (b is not the first budget: the others are skipped, not the end of the
    # loop). app=c takes c from 1 to 0 (not below zero), d1 is counted by d already,
    # and the unlabelled-for-any pod takes nothing.
    budgets = [pdb("a", {"app": "a"}, allowed=0), pdb("b", {"app": "b"}, allowed=0),
               pdb("c", {"app": "c"}, allowed=1), pdb("d", {"app": "d"}, allowed=0)]
    budgets[3]["status"]["disruptedPods"] = {"d1": "2026-01-01T00:00:00Z"}
    pods = [pod(name, "1", node_name="n", labels={"app": app})
            for name, app in [("a1", "a"), ("b1", "b"), ("c1", "c"), ("d1", "d"),
                              ("x1", "x")]]
    cluster = cluster_of(node("n"), *pods, *budgets)
    pdbs = sorted(cluster.pdbs, key=lambda p: p.name)
    units = [VictimUnit(f"{NS}/{name}", [cluster.pods[f"{NS}/{name}"]], LOW)
             for name in ("x1", "a1", "b1", "c1", "d1")]
    violating, ok = split_units_by_pdb(units, pdbs)
    assert [(u.key, count) for u, count in violating] == [("default/a1", 1),
                                                          ("default/b1", 1)]
    assert [u.key for u in ok] == ["default/x1", "default/c1", "default/d1"]


def _groups_and_cluster(objects: list[dict[str, Any]]):
    cluster, groups = cluster_and_groups(objects)
    return VictimGroups(groups.pod_groups), cluster


def test_units_on_node_bring_only_their_groups_pods():
    # getCrossNodesVictims: g-0's unit is every scheduled pod naming PodGroup g in g-0's
    # namespace (g-1 on node-b too), not p (same namespace, no group) nor o (another
    # namespace naming a group "g" that does not exist there: a plain pod). Each unit is
    # keyed by the pod's or the PodGroup's namespace/name.
    objects = [node("node-a"), node("node-b"),
               member_pod("g-0", "node-a", "1", group="g"),
               member_pod("g-1", "node-b", "1", group="g"),
               pod("p", "1", node_name="node-b", priority=10),
               pod("o", "1", ns="other", node_name="node-b", priority=10,
                   spec_extra={"schedulingGroup": {"podGroupName": "g"}}),
               pod_group("g", LOW, mode="all")]
    groups, cluster = _groups_and_cluster(objects)
    bound = cluster.pods
    on_a = groups.units_on_node(cluster.node_view(cluster.node_index["node-a"]), bound)
    assert [(u.key, sorted(p.name for p in u.pods), u.priority) for u in on_a] == [
        ("default/g", ["g-0", "g-1"], LOW)]
    on_b = groups.units_on_node(cluster.node_view(cluster.node_index["node-b"]), bound)
    assert sorted((u.key, sorted(p.name for p in u.pods), u.priority) for u in on_b) == [
        ("default/g", ["g-0", "g-1"], LOW), ("default/p", ["p"], 10),
        ("other/o", ["o"], 10)]


def test_a_units_pods_elsewhere_do_not_free_this_node():
    # node-a (4 CPU): h (2 CPU, above the preemptor) and g-0 (1 CPU) of the `all` group
    # g, whose g-1 (1 CPU) runs on node-b; node-b (2 CPU) also holds k (1 CPU, above the
    # preemptor). The preemptor needs 3 CPU. Removing unit g frees 1 CPU on node-a
    # (g-1's CPU is node-b's): 2 + 3 > 4, so node-a is no candidate (its status is the
    # filter's); on node-b, 1 + 3 > 2. No candidate: the pod stays pending.
    objects = [node("node-a", cpu="4"), node("node-b", cpu="2"),
               pod("h", "2", node_name="node-a", priority=2 * HIGH),
               member_pod("g-0", "node-a", "1", group="g"),
               member_pod("g-1", "node-b", "1", group="g"),
               pod("k", "1", node_name="node-b", priority=2 * HIGH),
               pod_group("g", LOW, mode="all"), preemptor("3")]
    on = decide(objects, "default/preemptor")
    assert (on.result, on.victims) == ("unschedulable", [])
    assert "Insufficient cpu" in on.message


def test_reprieved_violating_unit_is_no_violation_and_violations_add_up():
    # node-a (3 CPU): v1, v2 (1 CPU each, app=v, a budget allowing none) and w (1 CPU, no
    # budget), all priority LOW, started in that order. Preemptor of 2 CPU: removing all
    # fits; v1 and v2 violate and are reprieved first: v1 fits back (1 + 2 <= 3), v2 does
    # not (one violation); w does not either. Victims v2, w (MoreImportantVictim: earlier
    # start first); 1 violation, v1's reprieve counting none.
    base = [node("node-a", cpu="3"),
            member_pod("v1", "node-a", "1", priority=LOW, start=0, labels={"app": "v"}),
            member_pod("v2", "node-a", "1", priority=LOW, start=1, labels={"app": "v"}),
            member_pod("w", "node-a", "1", priority=LOW, start=2),
            pdb("budget", {"app": "v"}, allowed=0)]
    two = decide([*base, preemptor("2")], "default/preemptor")
    assert (two.node, two.victims, two.pdb_violations) == (
        "node-a", ["default/v2", "default/w"], 1)
    # A preemptor of 3 CPU takes all three: both violating units are left out, 1 + 1.
    three = decide([*base, preemptor("3")], "default/preemptor")
    assert (three.node, sorted(three.victims), three.pdb_violations) == (
        "node-a", ["default/v1", "default/v2", "default/w"], 2)


def test_removed_and_reprieved_units_update_the_plugins_state():
    # The preemptor's required anti-affinity rejects node-a while g-0 (app=g) runs there
    # (InterPodAffinity, Unschedulable: preemption may help). Removing g-0's unit must
    # reach the plugin's state (RemovePod) for the pod to fit, and adding it back (AddPod)
    # must make the reprieve fail: g-0 is the victim.
    objects = [node("node-a", cpu="4"),
               member_pod("g-0", "node-a", "1", priority=LOW, labels={"app": "g"}),
               pod("preemptor", "1", priority=HIGH, spec_extra={"affinity": ANTI_G})]
    on = decide(objects, "default/preemptor")
    assert (on.result, on.node, on.victims) == ("preempt", "node-a", ["default/g-0"])


def test_removing_a_unit_keeps_the_nodes_other_pods():
    # node-a holds h (above the preemptor) on host port 8080 and v (LOW). The preemptor
    # wants 8080: NodePorts rejects node-a (Unschedulable, so it is dry-run); removing v
    # leaves h on the node, still holding the port, so node-a is no candidate and the
    # pod stays pending with NodePorts' reason.
    port = [{"containerPort": 8080, "hostPort": 8080}]
    h = pod("h", "1", node_name="node-a", priority=2 * HIGH)
    h["spec"]["containers"][0]["ports"] = port
    incoming = preemptor("1")
    incoming["spec"]["containers"][0]["ports"] = port
    objects = [node("node-a", cpu="4"), h,
               member_pod("v", "node-a", "1", priority=LOW), incoming]
    on = decide(objects, "default/preemptor")
    assert (on.result, on.victims) == ("unschedulable", [])
    assert on.message.endswith("preemption: 0/1 nodes are available: 1 node(s) didn't "
                               "have free ports for the requested pod ports.")


def test_a_high_priority_pod_of_a_low_priority_group_is_a_victim(monkeypatch):
    # x's own priority (2000) is above the preemptor's, its PodGroup's (LOW) below:
    # getPodPriority makes x's unit a victim, on the reference path too (no resource
    # pre-check reading pods' own priorities drops node-a).
    reference_preemption(monkeypatch)
    objects = [node("node-a", cpu="2"),
               member_pod("x", "node-a", "2", priority=2 * HIGH, group="lo"),
               pod_group("lo", LOW), preemptor()]
    on = decide(objects, "default/preemptor")
    assert (on.result, on.node, on.victims) == ("preempt", "node-a", ["default/x"])
