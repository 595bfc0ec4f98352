"""``advise -f`` of a PodGroup: the answers' shape and the trials' inputs, pinned.

Expected answers follow upstream (Kubernetes 1.37): the pod group cycle
(``pkg/scheduler/schedule_one_podgroup.go``), the GangScheduling PreEnqueue (``minCount``
pods must exist before any cycle), workload-aware preemption (victims of strictly lower
priority than the PodGroup), ``PodEligibleToPreemptOthers`` (``preemptionPolicy: Never``
never preempts), and ``filterPodsWithPDBViolation`` (a victim whose budget has no
disruptions left violates it).
"""

from __future__ import annotations

from typing import Any

from builders import cluster_of, docs_of, node, pdb, pod, priority_class

from kubepreempt.api.podgroup import load_group_objects
from kubepreempt.whatif.advise import MAX_NODES
from kubepreempt.whatif.gang import gang_of
from kubepreempt.whatif.gang_advise import advise_gang

NOW = 1e9  # 2001-09-09: before every startTime below
GATES = {"GenericWorkload": True, "WorkloadAwarePreemption": True}


def pod_group(name: str, min_count: int, *, ns: str = "ml",
              priority_class_name: str | None = None) -> dict[str, Any]:
    """A v1beta1 gang PodGroup with ``min_count``."""
    spec: dict[str, Any] = {"schedulingPolicy": {"gang": {"minCount": min_count}},
                            "disruptionMode": {"single": {}}}
    if priority_class_name:
        spec["priorityClassName"] = priority_class_name
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": ns}, "spec": spec}


def member(name: str, group: str, cpu: str, **kw: Any) -> dict[str, Any]:
    """A pod in namespace ml naming ``group``."""
    return pod(name, cpu, ns="ml", spec_extra={"schedulingGroup": {"podGroupName": group}},
               **kw)


def gang(dump: list[dict], new: list[dict]):
    """The cluster of ``dump`` and the gang of ``new``."""
    cluster = cluster_of(*dump)
    objects = load_group_objects(docs_of(*dump).of, cluster.priority, GATES)
    return cluster, gang_of(cluster, docs_of(*new), objects, GATES, now=NOW)


def test_waiting_gang_answers_every_question_with_no_change() -> None:
    """minCount 5, three pods: PreEnqueue holds them, no cycle runs, so no priority,
    budget, node or filter change is asked about; the answer says so in full."""
    dump = [node("n1", cpu="8")]
    new = [pod_group("train", 5), *(member(f"w-{i}", "train", "1") for i in range(3))]
    cluster, g = gang(dump, new)
    a = advise_gang(cluster, g, node_template=cluster.nodes[0], now=NOW)
    current = {"priority": 0, "placed": False, "result": "waiting", "placements": {},
               "victims": [], "pdbViolations": 0}
    assert a.to_json() == {
        "podGroup": "ml/train",
        "waiting": ("PodGroup ml/train waits before any scheduling cycle: only 3 pod(s) "
                    "name it, fewer than its minCount 5 (the GangScheduling PreEnqueue holds "
                    "them); no priority, node or filter change lets it in, only more pods "
                    "naming it"),
        "subject": g.subject, "pods": 3, "current": current,
        "priority": {"lowestValue": None, "lowestClass": None},
        "pdbs": {"violated": [], "blocking": [], "withoutAnyPdb": current},
        "nodes": {"template": "n1", "allocatable": dict(cluster.nodes[0].allocatable),
                  "needed": None, "searchedUpTo": 0, "rejectedBy": None},
        "filters": {"pod": None, "plugins": []}}
    assert advise_gang(cluster, g, now=NOW).nodes is None  # no --node-like: no question


def _two_full_nodes() -> list[dict]:
    """Two 1-CPU nodes held by ``low-0`` (100) and ``mid-0`` (500); classes at 100, 500,
    exactly 501 (``Never`` preempting) and 1000."""
    return [priority_class("low", 100), priority_class("mid", 500),
            priority_class("never", 501, policy="Never"), priority_class("high", 1000),
            node("n1", cpu="1"), node("n2", cpu="1"),
            pod("low-0", "1", ns="batch", node_name="n1",
                spec_extra={"priorityClassName": "low"}, start="2026-01-01T00:00:00Z"),
            pod("mid-0", "1", ns="batch", node_name="n2",
                spec_extra={"priorityClassName": "mid"}, start="2026-01-01T00:00:00Z")]


def test_full_answer_shape_and_the_class_that_may_preempt() -> None:
    """A gang of two 1-CPU pods (minCount 2) needs both nodes: at 501 both holders are of
    strictly lower priority and are preempted. The class ``never`` has exactly 501 but
    ``preemptionPolicy: Never`` (``PodEligibleToPreemptOthers`` false), so the lowest
    class that lets the group in is ``high``. Without preemption two nodes like n1 must
    be added, one pod on each."""
    new = [pod_group("train", 2), *(member(f"w-{i}", "train", "1") for i in range(2))]
    cluster, g = gang(_two_full_nodes(), new)
    a = advise_gang(cluster, g, node_template=cluster.nodes[0], now=NOW)
    data = a.to_json()
    assert data["subject"] == g.subject and data["pods"] == 2
    assert data["current"]["priority"] == 0 and data["current"]["result"] == "unschedulable"
    assert data["priority"]["lowestValue"] == 501
    cls = data["priority"]["lowestClass"]
    assert (cls["name"], cls["value"], cls["preemptionPolicy"]) == (
        "high", 1000, "PreemptLowerPriority")
    assert sorted(cls["victims"]) == ["batch/low-0", "batch/mid-0"]
    assert set(data["pdbs"]) == {"violated", "blocking", "withoutAnyPdb"}
    nodes = data["nodes"]
    assert set(nodes) == {"template", "allocatable", "needed", "searchedUpTo", "rejectedBy",
                          "placements"}
    assert nodes["template"] == "n1" and nodes["searchedUpTo"] == MAX_NODES
    assert nodes["allocatable"] == dict(cluster.nodes[0].allocatable)
    assert nodes["needed"] == 2 and sorted(nodes["placements"].values()) == [1, 1]


def test_class_at_exactly_the_lowest_value_is_chosen() -> None:
    """The same with the 501 class preempting: a class whose value equals the lowest
    value lets the group in, so it is the answer (``>=``, not ``>``)."""
    dump = [d if d.get("metadata", {}).get("name") != "never" else
            priority_class("exact", 501) for d in _two_full_nodes()]
    new = [pod_group("train", 2), *(member(f"w-{i}", "train", "1") for i in range(2))]
    cluster, g = gang(dump, new)
    a = advise_gang(cluster, g, now=NOW)
    assert a.priority["lowestValue"] == 501 and a.priority["lowestClass"]["name"] == "exact"


def test_budget_the_only_victim_breaks_is_violated_not_blocking() -> None:
    """One 1-CPU node runs ``v``, guarded by a budget with no disruptions left. The
    one-pod gang (class high) can only preempt ``v``: the budget is violated, and lifting
    it does not change the decision (same node, same victim), so it is not blocking."""
    dump = [priority_class("high", 1000), node("n1", cpu="1"),
            pod("v", "1", ns="batch", node_name="n1", priority=0, labels={"app": "v"},
                start="2026-01-01T00:00:00Z"),
            pdb("guard-v", {"app": "v"}, allowed=0, ns="batch")]
    new = [pod_group("train", 1, priority_class_name="high"), member("w-0", "train", "1")]
    cluster, g = gang(dump, new)
    a = advise_gang(cluster, g, now=NOW)
    assert a.current["victims"] == ["batch/v"] and a.current["pdbViolations"] == 1
    assert a.priority["lowestValue"] == 1
    assert a.pdbs["violated"] == ["batch/guard-v"] and a.pdbs["blocking"] == []
    assert a.pdbs["withoutAnyPdb"]["victims"] == ["batch/v"]


def test_nodes_no_count_helps_when_an_empty_node_rejects_a_member() -> None:
    """n1 has 1 CPU; the gang has a 1-CPU and a 2-CPU pod (minCount 2). The 2-CPU pod's
    own cycle is rejected, and an added empty node like n1 still rejects it
    (NodeResourcesFit), so no number of such nodes helps: that reason is the answer."""
    new = [pod_group("train", 2), member("small", "train", "1"), member("big", "train", "2")]
    cluster, g = gang([node("n1", cpu="1")], new)
    a = advise_gang(cluster, g, node_template=cluster.nodes[0], now=NOW)
    assert a.nodes is not None and a.nodes["needed"] is None
    assert a.nodes["rejectedBy"] == "NodeResourcesFit: Insufficient cpu"
    assert "placements" not in a.nodes
    assert a.filters_pod == "ml/big"


def test_filters_replay_an_earlier_members_preemption() -> None:
    """WorkloadAwarePreemption off: each member's own cycle runs DefaultPreemption. n1
    (2 CPU) runs ``low`` (1 CPU, priority 0), n2 (1 CPU) is tainted. ``w-0`` (2 CPU,
    priority 1000) fits nowhere and preempts ``low``, nominated to n1; ``w-1`` (1 CPU)
    then finds n1 taken by w-0 and n2 tainted: rejected. Its report is made with w-0
    assumed on n1 after its preemption (``low`` and its 4Gi gone), so n1 rejects it for
    cpu only — not with ``low`` still there and w-0 nowhere, where n1 would admit it,
    nor with both there, where n1 would lack memory too. Tolerating the taint lets the
    group in: w-0 on n1 preempting low, w-1 on n2."""
    taint = [{"key": "gpu", "value": "yes", "effect": "NoSchedule"}]
    dump = [priority_class("high", 1000), node("n1", cpu="2", memory="4Gi"),
            node("n2", cpu="1", taints=taint),
            pod("low", "1", "4Gi", ns="batch", node_name="n1", priority=0,
                start="2026-01-01T00:00:00Z")]
    new = [pod_group("train", 2, priority_class_name="high"),
           member("w-0", "train", "2", priority=1000),
           member("w-1", "train", "1", priority=1000, memory="1Gi")]
    cluster = cluster_of(*dump)
    gates = {"GenericWorkload": True, "WorkloadAwarePreemption": False}
    objects = load_group_objects(docs_of(*dump).of, cluster.priority, gates)
    g = gang_of(cluster, docs_of(*new), objects, gates, now=NOW)
    a = advise_gang(cluster, g, now=NOW)
    assert a.current["result"] == "unschedulable" and a.filters_pod == "ml/w-1"
    by_plugin = {f["plugin"]: f for f in a.filters}
    assert by_plugin["NodeResourcesFit"]["nodes"] == 1
    assert by_plugin["NodeResourcesFit"]["reasons"] == {"Insufficient cpu": 1}
    group = by_plugin["TaintToleration"]["suggestion"]["group"]
    assert group["result"] == "preempt" and group["victims"] == ["batch/low"]
    assert group["placements"] == {"ml/w-0": "n1", "ml/w-1": "n2"}


def test_a_basic_group_whose_pods_cannot_be_queued_waits() -> None:
    """A basic PodGroup whose only pod names a scheduler no profile serves: the pod is
    never queued (``responsibleForPod``), nothing is assigned, so the group waits, and
    the reason says none of its pods can be queued."""
    basic = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
             "metadata": {"name": "solo", "namespace": "ml"},
             "spec": {"schedulingPolicy": {"basic": {}}}}
    stray = pod("s-0", "1", ns="ml", spec_extra={
        "schedulingGroup": {"podGroupName": "solo"}, "schedulerName": "elsewhere"})
    cluster, g = gang([node("n1")], [basic, stray])
    a = advise_gang(cluster, g, now=NOW)
    assert a.current["result"] == "waiting"
    assert a.waiting == ("PodGroup ml/solo waits before any scheduling cycle: none of its "
                         "pods can be queued (the GangScheduling PreEnqueue holds them); no "
                         "priority, node or filter change lets it in, only more pods naming it")


def test_no_priority_lets_the_group_in() -> None:
    """The 2-CPU member fits no 1-CPU node at any priority (nothing to preempt would free
    2 CPUs on one node): no lowest value and no class."""
    new = [pod_group("train", 2), member("small", "train", "1"), member("big", "train", "2")]
    cluster, g = gang([priority_class("high", 1000), node("n1", cpu="1")], new)
    assert advise_gang(cluster, g, now=NOW).priority == {"lowestValue": None,
                                                         "lowestClass": None}


def test_budgets_are_weighed_at_the_lowest_priority_that_lets_the_group_in() -> None:
    """The two-full-nodes gang with a budget on ``low-0`` that has no disruptions left:
    at the lowest value 501 the group preempts both holders, breaking it. Every trial
    is made at 501, not at the group's own priority 0 (where nothing can be preempted):
    lifting the budget or all budgets still lets the group in, preempting both."""
    dump = [*_two_full_nodes(), pdb("guard-low", {"app": "low"}, allowed=0, ns="batch")]
    dump[6]["metadata"]["labels"] = {"app": "low"}
    new = [pod_group("train", 2), *(member(f"w-{i}", "train", "1") for i in range(2))]
    cluster, g = gang(dump, new)
    a = advise_gang(cluster, g, now=NOW)
    assert a.priority["lowestValue"] == 501
    assert a.pdbs["violated"] == ["batch/guard-low"]
    assert a.pdbs["withoutAnyPdb"]["result"] == "preempt"
    for lifted in a.pdbs["blocking"]:
        assert lifted["withoutIt"]["result"] == "preempt"
        assert sorted(lifted["withoutIt"]["victims"]) == ["batch/low-0", "batch/mid-0"]


def test_the_class_name_reaches_the_quota_admission() -> None:
    """A ResourceQuota allows no pods of class ``capped`` (700) in ml (scope
    ``PriorityClass In [capped]``): given that class the members are refused at
    creation, so the group waits; the lowest class that lets it in is ``high``."""
    quota = {"apiVersion": "v1", "kind": "ResourceQuota",
             "metadata": {"name": "no-capped", "namespace": "ml"},
             "spec": {"hard": {"pods": "0"}, "scopeSelector": {"matchExpressions": [
                 {"scopeName": "PriorityClass", "operator": "In", "values": ["capped"]}]}}}
    dump = [*_two_full_nodes(), priority_class("capped", 700), quota]
    new = [pod_group("train", 2), *(member(f"w-{i}", "train", "1") for i in range(2))]
    cluster, g = gang(dump, new)
    assert advise_gang(cluster, g, now=NOW).priority["lowestClass"]["name"] == "high"


def test_nodes_when_no_member_is_rejected_but_permit_never_reaches_min_count() -> None:
    """minCount 2, but one of the two pods names a scheduler no profile serves: it is
    never queued, the other fits and waits at Permit. No member's own cycle rejects it,
    so no filter is to blame, and no number of added nodes lets the group in."""
    new = [pod_group("train", 2), member("w-0", "train", "1"),
           pod("w-1", "1", ns="ml", spec_extra={
               "schedulingGroup": {"podGroupName": "train"}, "schedulerName": "elsewhere"})]
    cluster, g = gang([node("n1", cpu="1")], new)
    a = advise_gang(cluster, g, node_template=cluster.nodes[0], now=NOW)
    assert a.current["result"] == "unschedulable" and a.filters_pod is None
    assert a.nodes is not None
    assert (a.nodes["needed"], a.nodes["rejectedBy"]) == (None, None)
    assert a.nodes["searchedUpTo"] == MAX_NODES


def test_nodes_are_counted_with_preemption_off() -> None:
    """n0 (2 CPU) runs ``low`` (priority 0); the one-pod gang of class high needs 2 CPU.
    With preemption it would preempt ``low``, but the node question is asked with
    preemption off: an added 1-CPU node like n1 still rejects the pod, so no count
    helps, for that reason."""
    dump = [priority_class("high", 1000), node("n0", cpu="2"), node("n1", cpu="1"),
            pod("low", "2", ns="batch", node_name="n0", priority=0,
                start="2026-01-01T00:00:00Z")]
    new = [pod_group("train", 1, priority_class_name="high"), member("big", "train", "2")]
    cluster, g = gang(dump, new)
    a = advise_gang(cluster, g, node_template=cluster.nodes[1], now=NOW)
    assert a.current["result"] == "preempt" and a.nodes is not None
    assert a.nodes["needed"] is None
    assert a.nodes["rejectedBy"] == "NodeResourcesFit: Insufficient cpu"


def _quota_charging_a_terminating_pod(selector: dict[str, str] | None = None,
                                      deleted: str = "2026-06-01T00:00:00Z"):
    """ResourceQuota ``pods: 2`` in ml, already charged for ``old``: terminating since
    2026-06-01 with 30 s grace. The quota evaluator (``QuotaV1Pod``) charges a
    terminating pod until its deletion time plus grace has passed, so at ``now`` = 2001
    only one more pod is admitted (the gang's second is refused at creation), while at
    the wall clock (after 2026-06-01) ``old`` is no longer charged and both are."""
    quota = {"apiVersion": "v1", "kind": "ResourceQuota",
             "metadata": {"name": "q", "namespace": "ml"}, "spec": {"hard": {"pods": "2"}}}
    old = pod("old", "1", ns="ml", node_name="n1", start="2026-01-01T00:00:00Z",
              meta_extra={"deletionTimestamp": deleted,
                          "deletionGracePeriodSeconds": 30})
    extra = {"nodeSelector": selector} if selector else {}
    dump = [priority_class("high", 1000), node("n1", cpu="4"), quota, old]
    new = [pod_group("train", 1), *(pod(f"w-{i}", "1", ns="ml", spec_extra={
        "schedulingGroup": {"podGroupName": "train"}, **extra}) for i in range(2))]
    return gang(dump, new)


def test_every_trial_is_made_at_the_given_now() -> None:
    """At ``now`` = 2001 each trial of the one-pod-minimum gang creates only ``w-0``:
    the current answer, the lowest priority's, the lowest class's, the no-budget one and
    the node count each place exactly one pod."""
    cluster, g = _quota_charging_a_terminating_pod()
    a = advise_gang(cluster, g, node_template=cluster.nodes[0], now=NOW)
    one = {"ml/w-0": "n1"}
    assert a.pods == 1 and a.current["placements"] == one
    assert a.priority["placements"] == one and a.priority["lowestClass"]["placements"] == one
    assert a.pdbs["withoutAnyPdb"]["placements"] == one
    assert a.nodes is not None and a.nodes["needed"] == 0
    assert a.nodes["placements"] == {"n1": 1}


def test_without_now_every_trial_reads_the_clock() -> None:
    """``now`` left out is the wall clock (after 2026-06-01): ``old`` is no longer
    charged, both pods are created and placed."""
    cluster, g = _quota_charging_a_terminating_pod()
    a = advise_gang(cluster, g, now=None)
    assert a.pods == 2 and sorted(a.current["placements"]) == ["ml/w-0", "ml/w-1"]


def test_the_filter_suggestion_is_tried_at_the_given_now() -> None:
    """The same with every pod selecting ``disk=ssd``, which no node has: ``w-0`` is
    rejected by NodeAffinity; dropping the selector lets the group in at 2001 with only
    ``w-0`` created."""
    cluster, g = _quota_charging_a_terminating_pod({"disk": "ssd"})
    a = advise_gang(cluster, g, now=NOW)
    assert a.filters_pod == "ml/w-0"
    group = {f["plugin"]: f for f in a.filters}["NodeAffinity"]["suggestion"]["group"]
    assert group["placements"] == {"ml/w-0": "n1"}


def test_a_terminating_pod_past_its_grace_is_not_charged_in_any_trial() -> None:
    """``old`` terminating since 2000-06-01: at ``now`` = 2001 its grace has passed, so
    the quota no longer charges it and every trial creates and places both pods (a
    trial made without a time would keep charging it and create one)."""
    cluster, g = _quota_charging_a_terminating_pod(deleted="2000-06-01T00:00:00Z")
    a = advise_gang(cluster, g, node_template=cluster.nodes[0], now=NOW)
    two = {"ml/w-0": "n1", "ml/w-1": "n1"}
    assert a.pods == 2 and a.current["placements"] == two
    assert a.priority["placements"] == two and a.priority["lowestClass"]["placements"] == two
    assert a.pdbs["withoutAnyPdb"]["placements"] == two
    assert a.nodes is not None and a.nodes["placements"] == {"n1": 2}
    cluster, g = _quota_charging_a_terminating_pod({"disk": "ssd"}, "2000-06-01T00:00:00Z")
    a = advise_gang(cluster, g, now=NOW)
    group = {f["plugin"]: f for f in a.filters}["NodeAffinity"]["suggestion"]["group"]
    assert group["placements"] == two


def test_the_filter_replay_is_made_at_the_given_now() -> None:
    """Quota ``pods: 2`` charged for ``old`` only until its grace passed in 2000: at 2001
    both gang pods (minCount 2) are created. n1 (2 CPU, ``old`` still bound with 1 CPU)
    takes ``w-0``; ``w-1`` finds n1 full and n2 tainted. The replay at the same time
    creates both pods again, so ``w-1``'s report is made: n1 for cpu, n2 for the taint."""
    taint = [{"key": "gpu", "value": "yes", "effect": "NoSchedule"}]
    dump = [node("n1", cpu="2"), node("n2", cpu="1", taints=taint),
            {"apiVersion": "v1", "kind": "ResourceQuota",
             "metadata": {"name": "q", "namespace": "ml"}, "spec": {"hard": {"pods": "2"}}},
            pod("old", "1", ns="ml", node_name="n1", start="2000-01-01T00:00:00Z",
                meta_extra={"deletionTimestamp": "2000-06-01T00:00:00Z",
                            "deletionGracePeriodSeconds": 30})]
    new = [pod_group("train", 2), *(member(f"w-{i}", "train", "1") for i in range(2))]
    cluster, g = gang(dump, new)
    a = advise_gang(cluster, g, now=NOW)
    assert a.pods == 2 and a.filters_pod == "ml/w-1"
    assert {f["plugin"]: f["nodes"] for f in a.filters} == {"NodeResourcesFit": 1,
                                                             "TaintToleration": 1}


def test_budgets_are_lifted_at_the_given_now() -> None:
    """Quota ``pods: 2`` charged for ``old`` only until its grace passed in 2000: at 2001
    both pods of the gang (minCount 2, class high) are created. n1 is full: ``old``
    (outranking the gang) and ``v`` (3 CPU, priority 0, a budget with disruptions to
    spare); the group preempts ``v``. Lifting that budget, at the same time, changes
    nothing: it is relevant but not blocking."""
    dump = [priority_class("high", 1000), node("n1", cpu="4"),
            {"apiVersion": "v1", "kind": "ResourceQuota",
             "metadata": {"name": "q", "namespace": "ml"}, "spec": {"hard": {"pods": "2"}}},
            pod("old", "1", ns="ml", node_name="n1", start="2000-01-01T00:00:00Z",
                priority=10**6, meta_extra={"deletionTimestamp": "2000-06-01T00:00:00Z",
                                            "deletionGracePeriodSeconds": 30}),
            pod("v", "3", ns="batch", node_name="n1", priority=0, labels={"app": "v"},
                start="2026-01-01T00:00:00Z"),
            pdb("guard-v", {"app": "v"}, allowed=5, ns="batch")]
    new = [pod_group("train", 2, priority_class_name="high"),
           *(member(f"w-{i}", "train", "1") for i in range(2))]
    cluster, g = gang(dump, new)
    a = advise_gang(cluster, g, now=NOW)
    assert a.current["result"] == "preempt" and a.current["victims"] == ["batch/v"]
    assert a.pdbs["violated"] == [] and a.pdbs["blocking"] == []


def test_the_filter_suggestion_preempts_by_start_time_at_the_given_now() -> None:
    """n1 (1 CPU) takes ``w-0``; ``w-1`` (priority 1000) is rejected by n1 (full) and by
    the taint of na and nb, each full with one priority-0 victim: ``va`` started
    2026-01-01, ``vb`` has no startTime (``GetPodStartTime``: counts as started now).
    Tolerating the taint, the pod preempts on one of them; every earlier criterion of
    ``pickOneNodeForPreemption`` ties, so the node whose victims started latest wins:
    at ``now`` = 2001 that is na (``vb`` counts as started in 2001)."""
    taint = [{"key": "gpu", "value": "yes", "effect": "NoSchedule"}]
    dump = [priority_class("high", 1000), node("n1", cpu="1"),
            node("na", cpu="1", taints=taint), node("nb", cpu="1", taints=taint),
            pod("va", "1", ns="batch", node_name="na", priority=0,
                start="2026-01-01T00:00:00Z"),
            pod("vb", "1", ns="batch", node_name="nb", priority=0)]
    new = [pod_group("train", 2, priority_class_name="high"),
           *(member(f"w-{i}", "train", "1", priority=1000) for i in range(2))]
    cluster, g = gang(dump, new)
    a = advise_gang(cluster, g, now=NOW)
    assert a.filters_pod == "ml/w-1"
    suggestion = {f["plugin"]: f for f in a.filters}["TaintToleration"]["suggestion"]
    assert (suggestion["node"], suggestion["victims"]) == ("na", ["batch/va"])


def test_the_replay_preempts_by_start_time_at_the_given_now() -> None:
    """WorkloadAwarePreemption off. na and nb (2 CPU, 4Gi) are full with one priority-0
    pod each: ``va`` started 2026-01-01, ``vb`` has no startTime (counts as started now).
    ``w-0`` (2 CPU, 4Gi, priority 1000) preempts; every earlier criterion of
    ``pickOneNodeForPreemption`` ties, so at ``now`` = 2001 it takes na, whose victim
    started latest. ``w-1`` (1 CPU, 1Gi, ``preemptionPolicy: Never``) must run on nb,
    still full with ``vb``: rejected. Replayed at the same time, w-0 is again on na, so
    nb lacks only cpu for w-1 (with w-0 on nb it would lack memory too)."""
    gates = {"GenericWorkload": True, "WorkloadAwarePreemption": False}
    dump = [priority_class("high", 1000), node("na", cpu="2", memory="4Gi"),
            node("nb", cpu="2", memory="4Gi"),
            pod("va", "2", ns="batch", node_name="na", priority=0,
                start="2026-01-01T00:00:00Z"),
            pod("vb", "2", ns="batch", node_name="nb", priority=0)]
    new = [pod_group("train", 2, priority_class_name="high"),
           member("w-0", "train", "2", memory="4Gi", priority=1000),
           pod("w-1", "1", "1Gi", ns="ml", priority=1000, spec_extra={
               "schedulingGroup": {"podGroupName": "train"}, "preemptionPolicy": "Never",
               "nodeSelector": {"kubernetes.io/hostname": "nb"}})]
    cluster = cluster_of(*dump)
    objects = load_group_objects(docs_of(*dump).of, cluster.priority, gates)
    g = gang_of(cluster, docs_of(*new), objects, gates, now=NOW)
    a = advise_gang(cluster, g, now=NOW)
    assert a.filters_pod == "ml/w-1"
    by_plugin = {f["plugin"]: f for f in a.filters}
    assert by_plugin["NodeResourcesFit"]["reasons"] == {"Insufficient cpu": 1}
