"""DefaultPreemption over victim units (Kubernetes 1.37, GenericWorkload on).

``test_more_important_victim`` ports every row of upstream's ``TestMoreImportantVictim``
(``pkg/scheduler/framework/preemption/util_test.go``). The cluster cases are worked from
upstream's functions: ``GetVictimsOnNode`` / ``getCrossNodesVictims`` (a pod of a
``disruptionMode: all`` PodGroup brings all of its group's scheduled pods), ``NewPodVictim``
and ``getPodPriority`` (a pod of a PodGroup weighs its group's priority),
DefaultPreemption's ``SelectVictimsOnNode`` (remove every lower-priority unit, reprieve
units by ``MoreImportantVictim``, PDB-violating ones first, a violating unit counting its
violating pods) and ``FilterVictimsWithPDBViolation``.
"""

from __future__ import annotations

import dataclasses

import pytest
from builders import cluster_of, node, pdb, pod
from builders.gang import HIGH, LOW, MID, NS, decide, member_pod, pod_group, preemptor

from kubepreempt.api.errors import Source
from kubepreempt.api.objects import Pod
from kubepreempt.api.podgroup import load_group_objects
from kubepreempt.manifests import Documents, RawObject
from kubepreempt.scheduler.preemption.victim_units import (
    VictimGroups,
    VictimUnit,
    importance_order,
    more_important_victim,
)

NOW, BEFORE = 1000.0, 500.0


def unit_pod(name: str, group: str | None = None) -> Pod:
    """A bound pod (in a one-node cluster), optionally naming a PodGroup."""
    spec = {"schedulingGroup": {"podGroupName": group}} if group else None
    return cluster_of(node("n"), pod(name, "1", node_name="n", spec_extra=spec)
                      ).pods[f"default/{name}"]


def unit(priority: int, pods: list[Pod], key: str = "u") -> VictimUnit:
    return VictimUnit(key, pods, priority)


def with_start(u: VictimUnit, start: float) -> VictimUnit:
    """``u`` with every pod started at ``start`` (upstream's earliestStartTime)."""
    u.pods = [dataclasses.replace(p, start_time=start) for p in u.pods]
    return u


@pytest.fixture(scope="module")
def plain() -> Pod:
    return unit_pod("plain")


@pytest.fixture(scope="module")
def member() -> Pod:
    return unit_pod("member", group="pg")


def test_more_important_victim(plain, member):
    rows = [
        # (name, vi1, vi2, want): upstream's rows in order.
        ("vi1 has higher priority", unit(20, [plain]), unit(10, [plain]), True),
        ("vi2 has higher priority", unit(10, [plain]), unit(20, [plain]), False),
        ("vi1 is PG, vi2 is Pod, same priority", unit(10, [member]), unit(10, [plain]), True),
        ("vi1 is Pod, vi2 is PG, same priority", unit(10, [plain]), unit(10, [member]),
         False),
        ("both Pods, vi1 older", with_start(unit(10, [plain]), BEFORE),
         with_start(unit(10, [plain]), NOW), True),
        ("both Pods, vi2 older", with_start(unit(10, [plain]), NOW),
         with_start(unit(10, [plain]), BEFORE), False),
        ("both PGs, vi1 larger", unit(10, [member, member]), unit(10, [member]), True),
        ("both PGs, vi2 larger", unit(10, [member]), unit(10, [member, member]), False),
        ("both PGs, same size, vi1 older", with_start(unit(10, [member, member]), BEFORE),
         with_start(unit(10, [member, member]), NOW), True),
        ("both PGs, same size, vi2 older", with_start(unit(10, [member, member]), NOW),
         with_start(unit(10, [member, member]), BEFORE), False),
    ]
    for name, a, b, want in rows:
        assert more_important_victim(a, b) is want, name


def test_importance_order_ranks_priority_then_group_then_size(plain, member):
    small = unit(10, [member], "g-small")
    large = unit(10, [member, member], "g-large")
    lone = unit(10, [plain], "p")
    high = unit(20, [plain], "p-high")
    assert [u.key for u in importance_order([lone, small, high, large])] == [
        "p-high", "g-large", "g-small", "p"]


# --- DefaultPreemption on clusters --------------------------------------------------

def test_a_pod_weighs_its_pod_groups_priority():
    # x's own priority is 10 but its PodGroup's is 2000 (getPodPriority): above the
    # preemptor's, so not a victim; only y (500) on node-b can go. Pod by pod (1.36, or
    # the gate off), x is the cheaper victim (lower highest-victim priority).
    objects = [node("node-a", cpu="2"), node("node-b", cpu="2"),
               member_pod("x", "node-a", "2", group="hi"),
               member_pod("y", "node-b", "2", priority=MID),
               pod_group("hi", 2000), preemptor()]
    on = decide(objects, "default/preemptor")
    assert (on.result, on.node, on.victims) == ("preempt", "node-b", ["default/y"])
    off = decide(objects, "default/preemptor", gates=None)
    assert (off.node, off.victims) == ("node-a", ["default/x"])
    old = decide(objects, "default/preemptor", version="1.36", gates=None)
    assert (old.node, old.victims) == ("node-a", ["default/x"])


def test_an_all_group_is_evicted_whole_across_nodes():
    # g-0 on node-a belongs to an `all` PodGroup whose other pod runs on node-b: the
    # unit (searchCrossNodesVictimPods) is both, so both are victims of the node-a
    # candidate; node-b's candidate is the same unit. Nodes tie on every criterion and
    # the first (node-a) wins. Pod by pod only g-0 goes.
    objects = [node("node-a", cpu="2"), node("node-b", cpu="2"),
               member_pod("g-0", "node-a", "2", group="g", start=1),
               member_pod("g-1", "node-b", "2", group="g", start=2),
               pod_group("g", LOW, mode="all"), preemptor()]
    on = decide(objects, "default/preemptor")
    assert on.result == "preempt" and sorted(on.victims) == ["default/g-0", "default/g-1"]
    off = decide(objects, "default/preemptor", gates=None)
    assert off.victims in (["default/g-0"], ["default/g-1"])


def test_a_group_unit_is_reprieved_before_a_plain_pod_of_its_priority():
    # node-a (3 CPU): p (plain, started first) and m (a `single` PodGroup's pod), both
    # priority 100 and 1 CPU; the preemptor needs 2 CPU, so one of them must go.
    # MoreImportantVictim ranks m's unit (PodGroup type) above p: m is reprieved and p
    # is the victim. MoreImportantPod (pod by pod) ranks p first (earlier start): m goes.
    objects = [node("node-a", cpu="3"),
               member_pod("p", "node-a", "1", priority=LOW, start=0),
               member_pod("m", "node-a", "1", priority=LOW, group="pg", start=5),
               pod_group("pg", LOW), preemptor()]
    on = decide(objects, "default/preemptor")
    assert on.victims == ["default/p"]
    off = decide(objects, "default/preemptor", gates=None)
    assert off.victims == ["default/m"]


def test_a_violating_unit_counts_each_violating_pod():
    # The `all` unit's two pods are both covered by a budget allowing none: the unit is
    # PDB-violating with ViolateCount 2, cannot be reprieved (the preemptor needs its
    # CPU), so the candidate reports 2 violations.
    objects = [node("node-a", cpu="2"),
               member_pod("g-0", "node-a", "1", group="g", labels={"app": "g"}),
               member_pod("g-1", "node-a", "1", group="g", labels={"app": "g"}),
               pdb("budget", {"app": "g"}, allowed=0),
               pod_group("g", LOW, mode="all"), preemptor()]
    on = decide(objects, "default/preemptor")
    assert sorted(on.victims) == ["default/g-0", "default/g-1"]
    assert on.pdb_violations == 2


def test_no_lower_priority_unit_means_no_victims():
    # Every pod on the node weighs its PodGroup's priority (HIGH): "No preemption
    # victims found for incoming pod" and the pod stays pending.
    objects = [node("node-a", cpu="2"),
               member_pod("x", "node-a", "2", group="hi"), pod_group("hi", HIGH),
               preemptor()]
    on = decide(objects, "default/preemptor")
    assert on.result == "unschedulable" and on.victims == []
    assert "No preemption victims found for incoming pod" in on.message


def test_group_members_index_follows_the_snapshot():
    # units_on_node with the snapshot's generation looks the members of an ``all`` group
    # up from an index; it must answer as the scan over every bound pod does, also after
    # a member leaves (remove bumps the generation) or joins.
    objects = [node("n1"), node("n2"), pod_group("pg", 5, "all"),
               member_pod("a", "n1", "1", group="pg"), member_pod("b", "n2", "1", group="pg"),
               member_pod("c", "n2", "1", group="pg")]
    cluster = cluster_of(*(o for o in objects if o["kind"] != "PodGroup"))
    docs = Documents()
    docs.add(RawObject("PodGroup", objects[2], Source("t.yaml", 0)))
    groups = VictimGroups(load_group_objects(docs.of, cluster.priority,
                                             {"GenericWorkload": True}).pod_groups)

    def members(indexed: bool) -> list[str]:
        view = cluster.node_view(cluster.node_index["n1"])
        gen = cluster.generation if indexed else None
        [u] = groups.units_on_node(view, cluster.pods, gen)
        return [p.key for p in u.pods]

    assert members(True) == members(False) == [f"{NS}/a", f"{NS}/b", f"{NS}/c"]
    b = cluster.pods[f"{NS}/b"]
    cluster.remove(b)
    assert members(True) == members(False) == [f"{NS}/a", f"{NS}/c"]
    cluster.bind(b, "n2")
    assert members(True) == members(False) == [f"{NS}/a", f"{NS}/c", f"{NS}/b"]
