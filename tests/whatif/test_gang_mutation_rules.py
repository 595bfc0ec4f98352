"""``schedule -f`` / ``advise -f`` of a 1.37 PodGroup: finding the group, its trial.

Expected answers come from kube-scheduler 1.37's pod group cycle
(``schedule_one_podgroup.go``), workload-aware preemption
(``podgrouppreemption.go``: with the PodGroupPreemptionPolicy gate the PodGroup's own
``preemptionPolicy`` decides whether the group may preempt), the controllers copying a
pod template's ``schedulingGroup`` to each pod they create (names from
``SimpleNameGenerator``, a CronJob's Job named by its schedule time, ``getJobName``), and
the apiserver (ResourceQuota object counts; a PodGroup created twice is AlreadyExists).
"""

from __future__ import annotations

from typing import Any

import pytest
from builders import cluster_of, docs_of, node, pod

from kubepreempt.api.errors import InputError, Source
from kubepreempt.api.podgroup import PodGroup, load_group_objects
from kubepreempt.controllers.expand import Names, expand
from kubepreempt.whatif.gang import GangChange, gang_of, gang_trial, names_pod_group, outcome

NOW = 1e9
GATES = {"GenericWorkload": True, "WorkloadAwarePreemption": True}


def _group(name: str, min_count: int = 1, ns: str = "ml", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}, **spec}}


def _member(name: str, group: str, cpu: str = "1", ns: str = "ml", **kw: Any) -> dict:
    return pod(name, cpu, ns=ns, spec_extra={"schedulingGroup": {"podGroupName": group},
                                             **kw.pop("spec_extra", {})}, **kw)


def _template(group: str) -> dict:
    return {"spec": {"schedulingGroup": {"podGroupName": group}, "restartPolicy": "Never",
                     "containers": [{"name": "c", "image": "x",
                                     "resources": {"requests": {"cpu": "1"}}}]}}


def _job(name: str, group: str, n: int = 2) -> dict:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": "ml"},
            "spec": {"parallelism": n, "completions": n, "template": _template(group)}}


def _gang(dump: list[dict], new: list[dict], gates=GATES, **kw: Any):
    cluster = cluster_of(*dump)
    objects = load_group_objects(docs_of(*dump).of, cluster.priority, gates)
    return cluster, gang_of(cluster, docs_of(*new), objects, gates, now=NOW, **kw)


def _error(dump: list[dict], new: list[dict]) -> InputError:
    with pytest.raises(InputError) as err:
        _gang(dump, new)
    return err.value


def test_malformed_templates_name_no_pod_group() -> None:
    """A workload whose template (or a CronJob's job template) is not an object has no
    pods naming a group (the workload's own validation reports it)."""
    assert not names_pod_group("CronJob", {"spec": {"jobTemplate": ["x"]}})
    assert not names_pod_group("Job", {"spec": {"template": "x"}})
    assert not names_pod_group("Pod", {"spec": ["x"]})
    assert names_pod_group("CronJob", {"spec": {"jobTemplate": {"spec": {
        "template": _template("g")}}}})


def test_a_pod_group_created_twice_names_the_new_document() -> None:
    err = _error([node("n1"), _group("dup")], [_group("dup"), _member("d-0", "dup")])
    assert (err.message, err.source, err.kind, err.name) == (
        "already exists in the cluster", Source("test.yaml", 0), "PodGroup", "ml/dup")


def test_a_pod_group_without_pods_anywhere_is_refused_in_full() -> None:
    err = _error([node("n1")], [_member("x-0", "other", ns="a"), _group("lonely")])
    assert (err.source, err.kind, err.name) == (Source("test.yaml", 1), "PodGroup", "ml/lonely")
    assert err.message == ("has no member pods: no pod in -f or in the cluster input names "
                           "it in spec.schedulingGroup.podGroupName")


def test_a_new_pod_group_whose_members_are_in_the_cluster_input() -> None:
    """The cluster input's pending pods may be the group's members: the PodGroup alone
    in ``-f`` is the group asked about, with no new pod."""
    cluster, gang = _gang([node("n1"), _member("w-0", "train"), _member("w-1", "train")],
                          [_group("train", 2)])
    assert (gang.key, gang.pods, gang.subject) == ("ml/train", [], "PodGroup/ml/train")


def test_new_pods_of_a_pod_group_of_the_cluster_input() -> None:
    """The PodGroup may already exist (cluster input) and ``-f`` bring its pods."""
    _, gang = _gang([node("n1"), _group("train", 2)],
                    [_member("w-0", "train"), _member("w-1", "train")])
    assert gang.key == "ml/train" and [p.name for p in gang.pods] == ["w-0", "w-1"]
    assert gang.subject == "Pod/ml/w-0, Pod/ml/w-1"


def test_pods_naming_a_pod_group_that_is_nowhere() -> None:
    err = _error([node("n1")], [_member("w-0", "ghost")])
    assert err.message == ("pod ml/w-0 names PodGroup ml/ghost in spec.schedulingGroup."
                           "podGroupName, but that PodGroup is neither in -f nor in the "
                           "cluster input (give it, or --feature-gates GenericWorkload=false "
                           "to place the pods one by one)")


def test_workloads_without_a_pod_group() -> None:
    workloads = [{"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "Workload",
                  "metadata": {"name": name, "namespace": "ml"},
                  "spec": {"podGroupTemplates": [{"name": "t", "schedulingPolicy": {
                      "basic": {}}}]}} for name in ("w1", "w2")]
    err = _error([node("n1")], workloads)
    assert err.message == ("-f holds Workload ml/w1, ml/w2 but no PodGroup and no pod "
                           "naming one: kube-scheduler decides PodGroups (a Workload's "
                           "controller creates them from its podGroupTemplates); give the "
                           "PodGroup and its pods")


def test_pods_outside_the_group_are_counted() -> None:
    group = [_group("a"), _member("a-0", "a")]
    err = _error([node("n1")], [*group, pod("p1", "1", ns="ml"), pod("p2", "1", ns="ml")])
    assert err.message == ("-f holds PodGroup ml/a and pods outside it (ml/p1 and 1 more); "
                           "place those in a separate run")
    err = _error([node("n1")], [*group, *(pod(f"p{i}", "1", ns="ml") for i in range(3))])
    assert "(ml/p0 and 2 more)" in err.message


def test_the_subject_names_every_new_object_with_pods() -> None:
    _, gang = _gang([node("n1", cpu="8")], [_group("train", 2), _job("train", "train")])
    assert gang.subject == "PodGroup/ml/train, Job/ml/train"
    assert len(gang.pods) == 2


def test_the_group_s_pods_follow_the_seed_and_the_time() -> None:
    """Generated names come from the seed; a CronJob's Job is named by the schedule time
    following now (here "*/5": 1e9 s is minute 16666666, the next multiple of 5 is
    16666670)."""
    job = _job("train", "train")
    _, gang = _gang([node("n1", cpu="8")], [_group("train", 2), job], seed=7)
    assert [p.name for p in gang.pods] == [p["metadata"]["name"]
                                           for p in expand(job, Names(7)).pods]
    cron = {"apiVersion": "batch/v1", "kind": "CronJob",
            "metadata": {"name": "c", "namespace": "ml"},
            "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {
                "parallelism": 2, "completions": 2, "template": _template("train")}}}}
    _, gang = _gang([node("n1", cpu="8")], [_group("train", 2), cron])
    assert all(p.name.startswith("c-16666670-") for p in gang.pods)


def test_a_workload_object_refused_by_quota_is_collected() -> None:
    quota = {"apiVersion": "v1", "kind": "ResourceQuota",
             "metadata": {"name": "q", "namespace": "ml"},
             "spec": {"hard": {"count/jobs.batch": "0"}}}
    refusals: list[tuple[str, str]] = []
    _, gang = _gang([node("n1"), quota], [_group("train", 2), _member("w-0", "train"),
                                          _job("extra", "train")], refusals=refusals)
    assert [what for what, _ in refusals] == ["Job/ml/extra"]
    assert [p.name for p in gang.pods] == ["w-0"]


def test_the_pod_group_s_own_preemption_policy_with_its_gate() -> None:
    """PodGroupPreemptionPolicy on: the PodGroup's ``preemptionPolicy: Never`` keeps the
    group from preempting (the low pod stays); off, the members' own policy
    (PreemptLowerPriority) lets it preempt."""
    dump = [node("n1", cpu="2"), pod("low", "2", ns="ml", node_name="n1", priority=1,
                                     start="2024-01-01T00:00:00Z")]
    new = [_group("train", 2, preemptionPolicy="Never", priority=100),
           *(_member(f"w-{i}", "train", priority=100) for i in range(2))]
    on = {**GATES, "PodGroupPreemptionPolicy": True}
    cluster, gang = _gang(dump, new, gates=on)
    assert gang.preemption_policy_gate
    decision = gang_trial(cluster, gang, now=NOW)
    assert (decision.result, decision.victims) == ("unschedulable", [])
    new[0]["spec"].pop("preemptionPolicy")
    cluster, gang = _gang(dump, new)
    assert not gang.preemption_policy_gate
    decision = gang_trial(cluster, gang, now=NOW)
    assert [v.key for v in decision.victims] == ["ml/low"]
    assert "message" not in outcome(cluster, decision) or decision.message


def test_a_change_sets_the_pod_group_s_class_and_policy() -> None:
    group = PodGroup("ml", "g", "Gang", 2, priority=5, priority_class_name="a")
    changed = GangChange(priority=9, priority_class_name="b", preemption_policy="Never").group(
        group)
    assert (changed.priority, changed.priority_class_name, changed.preemption_policy) == (
        9, "b", "Never")
    assert GangChange().group(group) == group


def test_an_unplaced_group_s_outcome_carries_its_message() -> None:
    """The PodGroup's condition message of a group that does not fit."""
    cluster, gang = _gang([node("n1", cpu="1")], [_group("train", 2), _job("train", "train")])
    decision = gang_trial(cluster, gang, now=NOW, preemption=False)
    out = outcome(cluster, decision)
    assert out["placed"] is False and out["message"] == decision.message != ""


def test_the_trial_reads_victims_start_times_at_the_given_time() -> None:
    """WorkloadAwarePreemption off: the member preempts as one pod
    (``pickOneNodeForPreemption``): equal victims, the node whose victim started latest
    wins, one without ``startTime`` counting as started at the time of the cycle: n2's
    (2024) at 2001, n1's at 2033."""
    dump = [node("n1", cpu="1"), node("n2", cpu="1"),
            pod("v1", "1", ns="ml", node_name="n1", priority=1),
            pod("v2", "1", ns="ml", node_name="n2", priority=1, start="2024-01-01T00:00:00Z")]
    for now, victim in ((NOW, "ml/v2"), (2e9, "ml/v1")):
        cluster, gang = _gang(dump, [_group("g", 1), _member("w-0", "g", priority=10)],
                              gates={"GenericWorkload": True})
        decision = gang_trial(cluster, gang, now=now)
        assert [v.key for v in decision.victims] == [victim]
