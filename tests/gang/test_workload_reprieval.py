"""Workload-aware preemption as Kubernetes 1.37 decides it: reprieval in place.

The rows are upstream's ``TestPodGroupEvaluator_Preempt_Victims``
(``pkg/scheduler/framework/preemption/podgrouppreemption_test.go``, the stored version
of commit 075d179b9b3a24bdf9fd7108da4c9ce7ee5289dd, the one with the ReprieveFilter).
Upstream's mock filter compares the sum of the pods' ``size`` labels with a node
capacity; here ``size`` is CPU and the capacity the node's allocatable CPU, so
NodeResourcesFit takes the mock's place. Each expected answer follows
``PodGroupEvaluator.selectVictimsOnDomain`` over ``prepareDomainVictims``' order:

1. every lower-priority unit is removed and the group algorithm proposes a placement;
2. units are tried PDB-violating first, each part most important first
   (``MoreImportantVictim``); a unit is put back and stays when every proposed pod
   still passes its node's filters, replayed in the group's order; else it goes;
3. the victims are the units given up, in that order (no sort afterwards).

Upstream's mock placement fills nodes round-robin; kubepreempt's group algorithm scores
nodes. The rows kept are those where both place the group alike (a single node, or
nodes that are all empty and alike, where the tie goes to the first by name); the
"Complex Mixed" row is left out because scoring spreads the group to other nodes than
the mock's round-robin, and the ReprieveFilter rows because the default preemption
manager's filter always allows a reprieval.
"""

from __future__ import annotations

from typing import Any

from builders import cluster_of, node, pdb, pod

from kubepreempt.api.errors import Source
from kubepreempt.api.podgroup import load_group_objects
from kubepreempt.manifests import Documents, RawObject
from kubepreempt.scheduler.gang import schedule_pod_group
from kubepreempt.scheduler.gang.cycle import group_algorithm
from kubepreempt.scheduler.gang.members import members_of
from kubepreempt.scheduler.gang.preemption import (
    NO_VICTIMS,
    PreemptionOutcome,
    WorkloadPreemption,
)
from kubepreempt.scheduler.scheduler import Scheduler

LOW, MID, HIGH = 10, 100, 1000
NS = "default"


def victim(name: str, node_name: str, priority: int = LOW, group: str | None = None,
           start: int | None = None, size: int = 1, labels=None) -> dict[str, Any]:
    spec = {"schedulingGroup": {"podGroupName": group}} if group else None
    return pod(name, str(size), node_name=node_name, priority=priority, labels=labels,
               spec_extra=spec, start=None if start is None else
               f"1970-01-01T00:00:{start:02d}Z")


def preemptor(name: str, size: int = 1, never: bool = False) -> dict[str, Any]:
    spec: dict[str, Any] = {"schedulingGroup": {"podGroupName": "preemptor-pg"}}
    if never:
        spec["preemptionPolicy"] = "Never"
    return pod(name, str(size), priority=HIGH, spec_extra=spec)


def pod_group(name: str, priority: int, mode: str = "single", min_count: int | None = 1
              ) -> dict[str, Any]:
    policy = {"gang": {"minCount": min_count}} if min_count else {"basic": {}}
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": NS},
            "spec": {"schedulingPolicy": policy, "disruptionMode": {mode: {}},
                     "priority": priority}}


def nodes(*capacities: int) -> list[dict[str, Any]]:
    return [node(f"node{i}", cpu=str(c)) for i, c in enumerate(capacities, 1)]


def setup(objects: list[dict[str, Any]], min_count: int | None = 1,
          policy_gate: bool = False, in_place: bool = True):
    objects = [*objects, pod_group("preemptor-pg", HIGH, min_count=min_count)]
    cluster = cluster_of(*(o for o in objects if o["kind"] != "PodGroup"))
    docs = Documents()
    for i, o in enumerate(objects):
        if o["kind"] == "PodGroup":
            docs.add(RawObject("PodGroup", o, Source("t.yaml", i)))
    gates = {"GenericWorkload": True, "PodGroupPreemptionPolicy": policy_gate}
    groups = load_group_objects(docs.of, cluster.priority, gates)
    evaluator = WorkloadPreemption(groups.pod_groups, policy_gate, reprieve_in_place=in_place)
    return cluster, Scheduler(cluster), evaluator, groups


def select(objects: list[dict[str, Any]], min_count: int | None = 1,
           policy_gate: bool = False, in_place: bool = True) -> PreemptionOutcome:
    """``PodGroupEvaluator.Preempt`` up to the candidate, for preemptor-pg's pods."""
    cluster, sched, evaluator, groups = setup(objects, min_count, policy_gate, in_place)
    group = groups.pod_groups[f"{NS}/preemptor-pg"]
    members = members_of(cluster, NS, "preemptor-pg")
    before = (dict(cluster.pods), cluster.requested.tolist(), dict(cluster.pending))
    outcome = evaluator.preempt(
        sched, group, members, members.unscheduled,
        lambda: group_algorithm(sched, group, 0, members.unscheduled, False, None,
                                post_filters=False))
    assert (dict(cluster.pods), cluster.requested.tolist(), dict(cluster.pending)) == before
    return outcome


def names(outcome: PreemptionOutcome) -> list[str]:
    return [p.name for p in outcome.victims]


def test_mix_of_no_groups_and_pod_groups():
    # "Priority: mix of no groups and pod groups": p2 (a PodGroup's pod) is more
    # important than the plain p1, is tried first and fits beside p (1+1 <= 2); p1 not.
    out = select([*nodes(2), victim("p1", "node1"), victim("p2", "node1", group="pg1"),
                  pod_group("pg1", LOW), preemptor("p")])
    assert out.ok and names(out) == ["p1"]
    assert out.pod_group_disruptions == 0 and out.pdb_violations == 0
    assert out.placements == {f"{NS}/p": "node1"}


def test_start_time_within_a_single_mode_group():
    # "Priority: StartTime of pods from same group with disruption mode single": p2
    # started first, is tried first and stays.
    out = select([*nodes(2), victim("p1", "node1", group="pg1", start=1),
                  victim("p2", "node1", group="pg1", start=0), pod_group("pg1", LOW),
                  preemptor("p")])
    assert names(out) == ["p1"] and out.pod_group_disruptions == 1


def test_all_mode_group_is_not_reprieved():
    # "Pod group with disruption mode group not reprieved": p goes to node1, where p1 of
    # the `all` group cannot come back, so the whole group goes.
    out = select([*nodes(1, 1), victim("p1", "node1", group="pg1"),
                  victim("p2", "node2", group="pg1"), pod_group("pg1", LOW, "all"),
                  preemptor("p")])
    assert sorted(names(out)) == ["p1", "p2"] and out.pod_group_disruptions == 1


def test_pdb_mixed_groups():
    # "PDB: Mixed groups": the protected unit is tried first and fits.
    out = select([*nodes(2), victim("victim-pdb", "node1", group="pg1", labels={"app": "foo"}),
                  victim("victim-no-pdb", "node1", group="pg1"),
                  pdb("budget", {"app": "foo"}, allowed=0), pod_group("pg1", LOW),
                  preemptor("p")])
    assert names(out) == ["victim-no-pdb"]
    assert out.pod_group_disruptions == 1 and out.pdb_violations == 0


def test_lower_priority_policy_with_pods_of_missing_groups():
    # "PodGroup preemptor with PreemptLowerPriority preemption policy performs
    # preemption": p2 and p3 name PodGroups that do not exist (their own priority
    # counts) yet rank as PodGroup victims, before the plain p1; p takes node1.
    out = select([*nodes(1, 1, 1), victim("p1", "node1"), victim("p2", "node2", group="pg1"),
                  victim("p3", "node3", group="pg2"), preemptor("p-1")])
    assert names(out) == ["p1"] and out.pod_group_disruptions == 0


def test_group_policy_overrides_a_member_saying_never():
    # "... ignoring member pod preemption policy" (PodGroupPreemptionPolicy on): the
    # PodGroup's PreemptLowerPriority decides; the member's Never does not.
    objects = [*nodes(1, 1, 1), victim("p1", "node1"),
               victim("p2", "node2", group="pg1"), victim("p3", "node3", group="pg2"),
               pod_group("pg1", LOW), pod_group("pg2", LOW), preemptor("p-1", never=True)]
    out = select(objects, policy_gate=True)
    assert names(out) == ["p1"]


def test_single_lower_priority_pod():
    out = select([*nodes(1), victim("p1", "node1"), preemptor("p")])
    assert names(out) == ["p1"]


def test_prefer_lower_priority_victim():
    # p3 has the preemptor's priority (not a victim); p2 (mid) is tried first but
    # p3+p2+p = 3 > 2, so both p2 and p1 go.
    out = select([*nodes(2), victim("p1", "node1"), victim("p2", "node1", priority=MID),
                  victim("p3", "node1", priority=HIGH), preemptor("p")])
    assert sorted(names(out)) == ["p1", "p2"]


def test_minimum_number_of_victims():
    # "Efficiency: Preempt minimum number of victims": equal units keep their order
    # (upstream's sort of four equal elements; here the key): p1 and p2 fit back.
    out = select([*nodes(3), *(victim(f"p{i}", "node1") for i in range(1, 5)),
                  preemptor("p")])
    assert names(out) == ["p3", "p4"]


def test_pdb_prefer_non_violating_victim():
    out = select([*nodes(2), victim("victim-pdb", "node1", labels={"app": "foo"}),
                  victim("victim-no-pdb", "node1"), pdb("budget", {"app": "foo"}, allowed=0),
                  preemptor("p")])
    assert names(out) == ["victim-no-pdb"] and out.pdb_violations == 0


def test_pdb_non_violating_goes_before_a_lower_priority_violating_one():
    # "PDB: Prefer removing non-violating victim over lower priority violating victim".
    out = select([*nodes(2), victim("victim-pdb", "node1", labels={"app": "foo"}),
                  victim("victim-no-pdb", "node1", priority=MID),
                  pdb("budget", {"app": "foo"}, allowed=0), preemptor("p")])
    assert names(out) == ["victim-no-pdb"]


def test_pdb_lower_priority_goes_when_every_victim_violates():
    # "PDB: Prefer lower priority pod for preemption, when preemption without pdb
    # violation is not possible": both violate; p2 (mid) is tried first and fits.
    out = select([*nodes(2), victim("p1", "node1", labels={"app": "foo"}),
                  victim("p2", "node1", priority=MID, labels={"app": "foo"}),
                  pdb("budget", {"app": "foo"}, allowed=0), preemptor("p")])
    assert names(out) == ["p1"] and out.pdb_violations == 1


def test_single_pod_goes_before_a_pod_group():
    # "PodGroup: Prefer single pod over podGroup for preemption candidate": the `all`
    # group is more important, is tried first and fits (2+1 <= 3).
    out = select([*nodes(3), victim("p1", "node1"), victim("g1-1", "node1", group="pg1"),
                  victim("g1-2", "node1", group="pg1"), pod_group("pg1", LOW, "all"),
                  preemptor("p")])
    assert names(out) == ["p1"] and out.pod_group_disruptions == 0


def test_group_goes_whole_on_a_single_node():
    # "PodGroup: Preempt group as a whole on single node": p1 (mid) stays; the group
    # (2 pods) no longer fits and goes whole.
    out = select([*nodes(3), victim("g1-1", "node1", group="pg1"),
                  victim("g1-2", "node1", group="pg1"), victim("p1", "node1", priority=MID),
                  pod_group("pg1", LOW, "all"), preemptor("p")])
    assert sorted(names(out)) == ["g1-1", "g1-2"] and out.pod_group_disruptions == 1


def test_unit_violates_when_any_member_does():
    # "PDB: Unit violation if any member violates": the group violates, is tried first
    # and fits; p1 goes, violating nothing.
    out = select([*nodes(3), victim("g1-1", "node1", group="pg1", labels={"app": "foo"}),
                  victim("g1-2", "node1", group="pg1"), victim("p1", "node1"),
                  pdb("budget", {"app": "foo"}, allowed=0), pod_group("pg1", LOW, "all"),
                  preemptor("p")])
    assert names(out) == ["p1"] and out.pdb_violations == 0


def test_no_victims_of_higher_or_equal_priority_or_on_empty_nodes():
    for objects in ([*nodes(100), victim("p1", "node1", priority=5000), preemptor("p")],
                    [*nodes(100), victim("p1", "node1", priority=HIGH), preemptor("p")],
                    [*nodes(100), preemptor("p")]):
        out = select(objects)
        assert not out.ok and out.message == NO_VICTIMS


def test_group_priority_below_its_pods_makes_them_victims():
    # "Priority divergence: candidate victim PodGroup has lower priority than the Pods".
    out = select([*nodes(1, 1), victim("p1", "node1", priority=HIGH, group="pg1"),
                  victim("p2", "node2", priority=HIGH, group="pg1"),
                  pod_group("pg1", MID, "all"), preemptor("p")])
    assert sorted(names(out)) == ["p1", "p2"] and out.pod_group_disruptions == 1


def test_gang_places_what_it_can_without_higher_priority_pods():
    # "Gang scheduling: schedule as many pods as possible without preempting higher
    # priority pods, but still more than minCount": two of the three members are placed
    # (node1, node2), where neither p1 nor p2 can come back.
    out = select([*nodes(1, 1, 1, 1), victim("p1", "node1"), victim("p2", "node2"),
                  victim("p3", "node3", priority=HIGH), victim("p4", "node4", priority=HIGH),
                  preemptor("p-a"), preemptor("p-b"), preemptor("p-c")])
    assert names(out) == ["p1", "p2"]
    assert sorted(out.placements.values()) == ["node1", "node2"]


def test_gang_does_not_reprieve_a_lower_priority_group():
    # "Gang scheduling: do not reprieve victim pod group of lower priority".
    objects = [*nodes(1, 1, 1), victim("v1", "node1", priority=MID, group="victim-pg"),
               victim("v2", "node2", priority=MID, group="victim-pg"), victim("v3", "node3"),
               pod_group("victim-pg", MID, "all"), preemptor("p-a"), preemptor("p-b"),
               preemptor("p-c")]
    out = select(objects)
    assert sorted(names(out)) == ["v1", "v2", "v3"] and out.pod_group_disruptions == 1
    # "Basic scheduling: ..." — the same with a basic policy.
    out = select(objects, min_count=None)
    assert sorted(names(out)) == ["v1", "v2", "v3"]


def test_gang_preempts_a_group_without_placing_every_member():
    # "Gang scheduling: preempt a pod group victim but do not schedule full pod group":
    # victim-pg2 has the preemptor's priority; only victim-pg goes.
    objects = [*nodes(1, 1, 1, 1),
               victim("v1", "node1", priority=MID, group="victim-pg"),
               victim("v2", "node2", priority=MID, group="victim-pg"),
               victim("v3", "node3", priority=HIGH, group="victim-pg2"),
               victim("v4", "node4", priority=HIGH, group="victim-pg2"),
               pod_group("victim-pg", MID, "all", 2), pod_group("victim-pg2", HIGH, "all", 2),
               preemptor("p-a"), preemptor("p-b"), preemptor("p-c")]
    out = select(objects)
    assert names(out) == ["v1", "v2"] and out.pod_group_disruptions == 1
    out = select(objects, min_count=None)
    assert names(out) == ["v1", "v2"]


# ---- where in-place reprieval and 1.36's re-run part ways --------------------------------
def test_placement_is_kept_even_when_moving_would_spare_a_more_important_unit():
    # node2 (2 CPU) scores better for p (least allocated), so the proposal puts p there.
    # b on node2 started first and is tried first: in place it no longer fits beside p
    # and goes; a (node1) then fits. Re-running the group algorithm instead (1.36) moves
    # p to node1 once b is back, keeping b and evicting a.
    objects = [node("node1", cpu="1"), node("node2", cpu="2"),
               victim("a", "node1", start=5), victim("b", "node2", start=1, size=2),
               preemptor("p")]
    out = select(objects)
    assert names(out) == ["b"] and out.placements == {f"{NS}/p": "node2"}
    out = select(objects, in_place=False)
    assert names(out) == ["a"] and out.placements == {f"{NS}/p": "node1"}


def test_victims_are_listed_in_the_order_they_were_given_up():
    # Both must go (p needs the whole node). a violates its budget and is tried (and
    # given up) first although b, started earlier, is more important: upstream does not
    # sort the victims afterwards. 1.36 listed them most important first.
    objects = [*nodes(2), victim("a", "node1", start=5, labels={"app": "foo"}),
               victim("b", "node1", start=1), pdb("budget", {"app": "foo"}, allowed=0),
               preemptor("p", size=2)]
    out = select(objects)
    assert names(out) == ["a", "b"] and out.pdb_violations == 1
    assert names(select(objects, in_place=False)) == ["b", "a"]


def test_in_place_reprieval_replays_the_group_in_its_order():
    # Two members on one 4-CPU node holding a 1-CPU pod: with it back, the first member
    # (2 CPU) still fits, the second (2 CPU) does not once the first is assumed, so the
    # pod goes.
    out = select([*nodes(4), victim("v", "node1"), preemptor("p-1", size=2),
                  preemptor("p-2", size=2)], min_count=2)
    assert names(out) == ["v"]


def test_group_cycle_preempts_only_as_a_group():
    # With workload-aware preemption on, the members' own cycles run no PostFilter:
    # a member that does not fit reports its bare fit error, and the victims are the
    # group's (both units of pods below the PodGroup's priority, placed in place).
    objects = [*nodes(1, 1), victim("x", "node1"), victim("y", "node2"),
               preemptor("p-1"), preemptor("p-2")]
    cluster, sched, evaluator, groups = setup(objects, min_count=2)
    group = groups.pod_groups[f"{NS}/preemptor-pg"]
    d = schedule_pod_group(sched, NS, "preemptor-pg", group, workload_preemption=evaluator)
    assert d.result == "preempt" and [v.name for v in d.victims] == ["x", "y"]
    assert d.placements == {f"{NS}/p-1": "node1", f"{NS}/p-2": "node2"}
    assert {m.message for m in d.members} == {"0/2 nodes are available: 2 Insufficient cpu."}
    # Without it (1.36's GangScheduling alone) each member preempts through its own
    # DefaultPreemption; no group-wide victim search runs.
    plain = schedule_pod_group(sched, NS, "preemptor-pg", group)
    assert plain.result == "preempt" and plain.unit_victims is None
    assert sorted(v.name for v in plain.victims) == ["x", "y"]


def _affinity(app: str, anti: bool = False) -> dict[str, Any]:
    term = {"labelSelector": {"matchLabels": {"app": app}},
            "topologyKey": "kubernetes.io/hostname"}
    kind = "podAntiAffinity" if anti else "podAffinity"
    return {"affinity": {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}}


def _spread_member(name: str) -> dict[str, Any]:
    spec = {"schedulingGroup": {"podGroupName": "preemptor-pg"},
            "topologySpreadConstraints": [{
                "maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": "gang"}}}]}
    return pod(name, "1", priority=HIGH, labels={"app": "gang"}, spec_extra=spec)


CROSS_NODE_CASES = {
    # The gang's pod needs the anchor (not a victim: the preemptor's priority) beside it.
    "affinity": [*nodes(2, 2), victim("anchor", "node2", priority=HIGH,
                                      labels={"app": "anchor"}),
                 victim("f1", "node1", size=2), victim("f2", "node2"),
                 pod("p-1", "1", priority=HIGH, labels={"app": "gang"}, spec_extra={
                     "schedulingGroup": {"podGroupName": "preemptor-pg"},
                     **_affinity("anchor")})],
    # A victim whose anti-affinity refuses the gang's pods on its node.
    "anti-affinity": [*nodes(2, 2),
                      pod("hater", "1", node_name="node1", priority=LOW,
                          start="1970-01-01T00:00:01Z", spec_extra=_affinity("gang", True)),
                      victim("v", "node2", size=2, start=2),
                      *(pod(f"p-{i}", "1", priority=HIGH, labels={"app": "gang"}, spec_extra={
                          "schedulingGroup": {"podGroupName": "preemptor-pg"}})
                        for i in (1, 2))],
    "anti-affinity, plugin on": [*nodes(2, 2, 1),
                                 pod("keeper", "1", node_name="node3", priority=HIGH,
                                     spec_extra=_affinity("gang", True)),
                                 pod("hater", "1", node_name="node1", priority=LOW,
                                     start="1970-01-01T00:00:01Z",
                                     spec_extra=_affinity("gang", True)),
                                 victim("v", "node2", size=2, start=2),
                                 *(pod(f"p-{i}", "1", priority=HIGH, labels={"app": "gang"},
                                       spec_extra={"schedulingGroup": {
                                           "podGroupName": "preemptor-pg"}})
                                   for i in (1, 2))],
    # Spread across hostnames: putting a victim back must not skew the gang.
    "spread": [*nodes(1, 1, 2), victim("a", "node1", start=1), victim("b", "node2", start=2),
               victim("c", "node3", size=2, start=3), _spread_member("s-1"),
               _spread_member("s-2"), _spread_member("s-3")],
}


def test_the_quick_checks_change_no_answer(monkeypatch):
    """Upstream's two phases (node-local filters on the unit's own nodes, then the
    cross-node ones over every pod, skipped when none has any) give the victims of the
    plain replay of every filter over every pod, with cross-node filters
    (InterPodAffinity, PodTopologySpread) in play and without."""
    import functools

    import kubepreempt.scheduler.gang.preemption as module

    cases = {**CROSS_NODE_CASES,
             "cpu only": [*nodes(2, 2, 2), victim("a", "node1", start=1),
                          victim("b", "node2", start=2), victim("c", "node3", start=3),
                          victim("d", "node1", start=4), preemptor("p-1"), preemptor("p-2")],
             "all group": [*nodes(1, 1, 2), victim("g1", "node1", group="pg"),
                           victim("g2", "node3", group="pg"), victim("x", "node2"),
                           victim("y", "node3"), pod_group("pg", LOW, "all"),
                           preemptor("p-1"), preemptor("p-2")]}
    quick = {name: names(select(objects)) for name, objects in cases.items()}
    monkeypatch.setattr(module, "_reprieves", functools.partial(module._reprieves,
                                                                 phased=False))
    plain = {name: names(select(objects)) for name, objects in cases.items()}
    assert quick == plain
    # p-1 can only go beside the anchor: f2 (node2) goes, f1 (node1) stays.
    assert quick["affinity"] == ["f2"]
    # hater's anti-affinity refuses the gang's pod proposed on its node, but when the
    # placement was proposed no bound pod had anti-affinity terms matching them, so
    # PreFilter skipped InterPodAffinity for the gang's pods and upstream never runs it again
    # (``PreFilterExtensionAddPod`` skips a skipped plugin): hater stays; v does not fit.
    assert quick["anti-affinity"] == ["v"]
    # With a bound pod whose anti-affinity matches the gang's pods (keeper, not a victim,
    # on a full node) the plugin ran at the proposal, the unit's pods are added to its
    # state, and hater goes too.
    assert quick["anti-affinity, plugin on"] == ["hater", "v"]
