"""``schedule -f`` and ``advise -f`` of a PodGroup with its pods (Kubernetes 1.37).

Each expected answer is worked out from upstream's rules, named in the test:
the pod group cycle (``pkg/scheduler/schedule_one_podgroup.go``) with the GangScheduling
plugin's PreEnqueue (``minCount`` pods must exist) and Permit (``minCount`` pods assumed,
else nothing is bound), workload-aware preemption (``framework/preemption/
podgrouppreemption.go``: victims of strictly lower priority than the PodGroup, a
``disruptionMode: all`` group one victim unit of all its pods), and DefaultPreemption's
``PodPriority(victim) < PodPriority(preemptor)``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from builders import cluster_of, docs_of, node, pdb, pod, priority_class

from kubepreempt.api.podgroup import load_group_objects
from kubepreempt.cli import main
from kubepreempt.whatif.gang import GangChange, gang_of, gang_trial, placed
from kubepreempt.whatif.gang_advise import advise_gang

NOW = 1e9
GATES = {"GenericWorkload": True, "WorkloadAwarePreemption": True}
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "gang"


def pod_group(name: str, min_count: int | None = None, *, ns: str = "ml",
              mode: str = "single", priority_class_name: str | None = None
              ) -> dict[str, Any]:
    """A v1beta1 PodGroup: gang with ``min_count``, else basic."""
    policy = {"gang": {"minCount": min_count}} if min_count else {"basic": {}}
    spec: dict[str, Any] = {"schedulingPolicy": policy, "disruptionMode": {mode: {}}}
    if priority_class_name:
        spec["priorityClassName"] = priority_class_name
    return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": ns}, "spec": spec}


def member(name: str, group: str, cpu: str, *, ns: str = "ml", **kw: Any) -> dict[str, Any]:
    """A pod naming ``group`` in spec.schedulingGroup."""
    extra = {"schedulingGroup": {"podGroupName": group}, **kw.pop("spec_extra", {})}
    return pod(name, cpu, ns=ns, spec_extra=extra, **kw)


def job(name: str, group: str, cpu: str, parallelism: int, *, ns: str = "ml",
        priority_class_name: str | None = None) -> dict[str, Any]:
    """A Job whose pod template names ``group`` (the controller copies it to each pod)."""
    spec: dict[str, Any] = {"schedulingGroup": {"podGroupName": group},
                            "restartPolicy": "Never",
                            "containers": [{"name": "c", "image": "x", "resources": {
                                "requests": {"cpu": cpu}}}]}
    if priority_class_name:
        spec["priorityClassName"] = priority_class_name
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": ns},
            "spec": {"parallelism": parallelism, "completions": parallelism,
                     "template": {"spec": spec}}}


def gang(dump: list[dict], new: list[dict]):
    """The cluster of ``dump`` and the gang of the new documents ``new``."""
    cluster = cluster_of(*dump)
    dump_objects = load_group_objects(docs_of(*dump).of, cluster.priority, GATES)
    return cluster, gang_of(cluster, docs_of(*new), dump_objects, GATES, now=NOW)


def write(tmp_path: Path, name: str, objects: list[dict]) -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(objects))
    return str(path)


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


# ---- schedule -f: the group decided whole ----------------------------------------------
def test_gang_that_fits_places_every_member() -> None:
    """Three 2-CPU nodes and a Job of three 2-CPU workers naming gang ``train``
    (minCount 3): each worker's own cycle finds a node, Permit allows the group once
    the third is assumed, so all three are placed, one per node, with no victims."""
    dump = [node("n1", cpu="2"), node("n2", cpu="2"), node("n3", cpu="2")]
    cluster, g = gang(dump, [pod_group("train", 3), job("train", "train", "2", 3)])
    assert g.key == "ml/train" and len(g.pods) == 3  # the template's group reached each pod
    decision = gang_trial(cluster, g, now=NOW)
    assert decision.result == "scheduled" and decision.victims == []
    assert sorted(decision.placements.values()) == ["n1", "n2", "n3"]
    assert cluster.pending == {} and cluster.pods == {}  # the trial was undone


def test_gang_one_member_short_places_nothing() -> None:
    """Two free 2-CPU nodes, a gang of three 2-CPU pods with minCount 3 and nothing to
    preempt: two pods fit, the third is rejected, Permit never reaches minCount, so the
    group is unschedulable and no pod is placed (all or nothing)."""
    dump = [node("n1", cpu="2"), node("n2", cpu="2")]
    new = [pod_group("train", 3), *(member(f"w-{i}", "train", "2") for i in range(3))]
    cluster, g = gang(dump, new)
    decision = gang_trial(cluster, g, now=NOW)
    assert decision.result == "unschedulable" and decision.placements == {}
    waiting = [m for m in decision.members if m.message.endswith(
        "waiting for minCount pods from a gang to be scheduled")]
    assert len(waiting) == 2  # the two that fit were held at Permit


def test_min_count_below_the_pods_lets_the_group_in() -> None:
    """The same three pods with minCount 2: Permit allows the group once two are
    assumed, so the group is scheduled with two pods placed, the third left out."""
    dump = [node("n1", cpu="2"), node("n2", cpu="2")]
    new = [pod_group("train", 2), *(member(f"w-{i}", "train", "2") for i in range(3))]
    cluster, g = gang(dump, new)
    decision = gang_trial(cluster, g, now=NOW)
    assert decision.result == "scheduled" and len(decision.placements) == 2


def _all_or_single(mode: str) -> list[dict]:
    """Two 1-CPU nodes, each running one pod of PodGroup batch/sweep (priority 0) in
    ``mode``. The new gang (minCount 1, one 1-CPU pod of pod priority 0) has PodGroup
    priority 1000: its pod cannot preempt alone (a victim must be of strictly lower pod
    priority), so workload-aware preemption decides, by the PodGroup's priority."""
    return [priority_class("high", 1000), node("n1", cpu="1"), node("n2", cpu="1"),
            pod_group("sweep", 2, ns="batch", mode=mode),
            member("sweep-0", "sweep", "1", ns="batch", node_name="n1",
                   start="2026-01-01T00:00:00Z"),
            member("sweep-1", "sweep", "1", ns="batch", node_name="n2",
                   start="2026-01-01T00:00:00Z")]


def test_preempting_an_all_group_evicts_all_its_members() -> None:
    """``disruptionMode: all``: the victim unit is the whole group, so freeing one node
    for the one-pod gang evicts both of sweep's pods."""
    new = [pod_group("train", 1, priority_class_name="high"), member("w-0", "train", "1")]
    cluster, g = gang(_all_or_single("all"), new)
    decision = gang_trial(cluster, g, now=NOW)
    assert decision.result == "preempt"
    assert sorted(v.key for v in decision.victims) == ["batch/sweep-0", "batch/sweep-1"]
    assert list(decision.placements) == ["ml/w-0"]


def test_preempting_a_single_group_evicts_one_pod() -> None:
    """The same with ``disruptionMode: single``: each pod is its own unit, one is
    reprieved, so exactly one pod is evicted and the gang takes its node."""
    new = [pod_group("train", 1, priority_class_name="high"), member("w-0", "train", "1")]
    cluster, g = gang(_all_or_single("single"), new)
    decision = gang_trial(cluster, g, now=NOW)
    assert decision.result == "preempt" and len(decision.victims) == 1
    assert decision.placements == {"ml/w-0": decision.victims[0].node_name}


# ---- advise -f: what lets the whole gang in --------------------------------------------
def test_advise_nodes_for_a_gang_of_whole_node_pods() -> None:
    """Four 4-CPU pods (minCount 4), each needing a whole node; n1 is free, n2 is full.
    With preemption off the group needs four free nodes at once: n1 plus 3 added nodes
    like n1. With 2 added, three pods fit and Permit still waits for the fourth."""
    dump = [node("n1", cpu="4"), node("n2", cpu="4"),
            pod("busy", "4", ns="prod", node_name="n2", priority=10**6)]
    new = [pod_group("train", 4), *(member(f"w-{i}", "train", "4") for i in range(4))]
    cluster, g = gang(dump, new)
    a = advise_gang(cluster, g, node_template=cluster.nodes[0], now=NOW)
    assert a.pod_group == "ml/train" and a.current["result"] == "unschedulable"
    assert a.nodes is not None and a.nodes["needed"] == 3
    assert sum(a.nodes["placements"].values()) == 4 and "n2" not in a.nodes["placements"]
    assert len(cluster.nodes) == 2  # the added nodes are gone again


def test_advise_priority_is_exactly_the_lowest_that_places_the_gang() -> None:
    """Two 1-CPU nodes hold ``low`` (priority 100) and ``mid`` (500); a gang of two 1-CPU
    pods with minCount 2 needs both nodes. At 101..500 only ``low`` is a victim (strictly
    lower priority), one pod fits, Permit waits: unschedulable. At 501 both are victims:
    the group is let in, preempting both. The lowest existing class at or above 501 is
    ``high`` (1000), not ``mid`` (500)."""
    dump = [priority_class("low", 100), priority_class("mid", 500),
            priority_class("high", 1000), node("n1", cpu="1"), node("n2", cpu="1"),
            pod("low-0", "1", ns="batch", node_name="n1",
                spec_extra={"priorityClassName": "low"}),
            pod("mid-0", "1", ns="batch", node_name="n2",
                spec_extra={"priorityClassName": "mid"})]
    new = [pod_group("train", 2), *(member(f"w-{i}", "train", "1") for i in range(2))]
    cluster, g = gang(dump, new)
    a = advise_gang(cluster, g, now=NOW)
    assert a.priority["lowestValue"] == 501
    assert sorted(a.priority["victims"]) == ["batch/low-0", "batch/mid-0"]
    assert a.priority["lowestClass"]["name"] == "high"
    # the boundary itself: one below is not enough
    assert not placed(gang_trial(cluster, g, now=NOW, change=GangChange(priority=500)))
    assert placed(gang_trial(cluster, g, now=NOW, change=GangChange(priority=501)))


def test_advise_priority_is_the_pod_groups_that_workload_preemption_compares() -> None:
    """Victim ``old-0`` has pod priority 900 but its PodGroup ``old`` has priority 10:
    workload-aware preemption weighs a victim unit by its PodGroup's priority
    (``GetPodPriority`` of a grouped pod), DefaultPreemption by the pod's. So the
    one-pod gang is let in at PodGroup priority 11 (its pod, at 11, could not preempt
    a 900 pod by itself), not at 901."""
    dump = [node("n1", cpu="1"),
            {**pod_group("old", None, ns="batch"),
             "spec": {"schedulingPolicy": {"basic": {}}, "priority": 10}},
            member("old-0", "old", "1", ns="batch", node_name="n1", priority=900)]
    new = [pod_group("train", 1), member("w-0", "train", "1")]
    cluster, g = gang(dump, new)
    a = advise_gang(cluster, g, now=NOW)
    assert a.priority["lowestValue"] == 11 and a.priority["victims"] == ["batch/old-0"]


def test_advise_filters_the_first_rejected_member_after_the_earlier_are_assumed() -> None:
    """n1 has 2 CPUs, n2 is tainted. A gang of two 2-CPU pods: the first takes n1, the
    second's own cycle is rejected; analysed with the first assumed on n1, n1 rejects it
    for resources and n2 for the taint, and tolerating the taint admits n2."""
    taint = [{"key": "gpu", "value": "yes", "effect": "NoSchedule"}]
    dump = [node("n1", cpu="2"), node("n2", cpu="2", taints=taint)]
    new = [pod_group("train", 2), *(member(f"w-{i}", "train", "2") for i in range(2))]
    cluster, g = gang(dump, new)
    a = advise_gang(cluster, g, now=NOW)
    assert a.filters_pod == "ml/w-1"
    by_plugin = {f["plugin"]: f for f in a.filters}
    assert by_plugin["NodeResourcesFit"]["nodes"] == 1
    suggestion = by_plugin["TaintToleration"]["suggestion"]
    assert suggestion["change"] == "tolerate gpu=yes:NoSchedule"
    # Every member tolerating it: the first stays on n1, the second takes n2, so the
    # whole group is scheduled.
    assert suggestion["group"]["result"] == "scheduled"
    assert suggestion["group"]["placements"] == {"ml/w-0": "n1", "ml/w-1": "n2"}


def test_advise_names_the_budget_that_shapes_the_gangs_victims() -> None:
    """One 2-CPU node runs two priority-0 pods: ``b`` started first, ``a`` guarded by a
    budget with no disruptions left. The one-pod gang (PodGroup priority 1000) preempts
    as a whole (workload-aware preemption, 1.37): with both gone its pod goes to n1, and
    the units are tried in place, PDB-violating ones first (``prepareDomainVictims``):
    ``a`` fits beside the gang's pod and stays, so ``b`` goes, violating nothing. Lifting
    the budget leaves the importance order alone: ``b`` (started first) is tried first and
    stays, so ``a`` would go instead: the budget changes the decision."""
    dump = [priority_class("high", 1000), node("n1", cpu="2"),
            pod("a", "1", ns="batch", node_name="n1", priority=0, labels={"app": "a"},
                start="2026-01-01T00:05:00Z"),
            pod("b", "1", ns="batch", node_name="n1", priority=0,
                start="2026-01-01T00:00:00Z"),
            pdb("guard-a", {"app": "a"}, allowed=0, ns="batch")]
    new = [pod_group("train", 1, priority_class_name="high"), member("w-0", "train", "1")]
    cluster, g = gang(dump, new)
    a = advise_gang(cluster, g, now=NOW)
    assert a.current["victims"] == ["batch/b"] and a.current["pdbViolations"] == 0
    assert a.pdbs["violated"] == []
    assert [b["pdb"] for b in a.pdbs["blocking"]] == ["batch/guard-a"]
    assert a.pdbs["blocking"][0]["withoutIt"]["victims"] == ["batch/a"]


# ---- the commands ------------------------------------------------------------------------
def test_schedule_f_prints_the_pod_group_answer(capsys, tmp_path) -> None:
    """``schedule -f`` of a gang prints ``--pod-group``'s object, after one line saying
    GenericWorkload was taken as on."""
    dump = write(tmp_path, "dump.yaml", [node("n1", cpu="2"), node("n2", cpu="2")])
    new = write(tmp_path, "new.yaml", [pod_group("train", 2), job("train", "train", "2", 2)])
    code, out, err = run(capsys, "schedule", dump, "-f", new, "-o", "json")
    assert code == 0 and err.count("\n") == 1 and "GenericWorkload is taken as on" in err
    data = json.loads(out)
    assert data["podGroup"] == "ml/train" and data["result"] == "scheduled"
    assert sorted(data["placements"].values()) == ["n1", "n2"] and data["victims"] == []
    assert data["modelled"]["featureGates"]["GenericWorkload"] is True


def test_pod_by_pod_under_1_36_and_with_the_gate_off(capsys, tmp_path) -> None:
    """1.36 (its v1alpha2 API is not modelled) or GenericWorkload=false: one line says
    the pods are scheduled pod by pod, and the answer is the per-pod what-if: with
    minCount 3 and room for two, two pods are scheduled (no all-or-nothing)."""
    dump = write(tmp_path, "dump.yaml", [node("n1", cpu="2"), node("n2", cpu="2")])
    new = write(tmp_path, "new.yaml", [pod_group("train", 3), job("train", "train", "2", 3)])
    for flags in (["--kube-version", "1.36"], ["--feature-gates", "GenericWorkload=false"]):
        code, out, err = run(capsys, "schedule", dump, "-f", new, "-o", "json", *flags)
        assert code == 0 and err.count("\n") == 1 and "scheduled pod by pod" in err
        summary = json.loads(out)["summary"]
        assert (summary["scheduled"], summary["pending"]) == (2, 1)


def test_advise_f_of_a_gang(capsys, tmp_path) -> None:
    """``advise -f`` names the PodGroup and answers for the group."""
    dump = write(tmp_path, "dump.yaml", [node("n1", cpu="2")])
    new = write(tmp_path, "new.yaml", [pod_group("train", 2), job("train", "train", "2", 2)])
    code, out, _ = run(capsys, "advise", dump, "-f", new, "--node-like", "n1", "-o", "json")
    assert code == 0
    data = json.loads(out)
    assert data["podGroup"] == "ml/train" and data["nodes"]["needed"] == 1
    assert data["current"]["result"] == "unschedulable"


def test_min_count_larger_than_the_members_waits(capsys, tmp_path) -> None:
    """PreEnqueue holds a gang whose PodGroup has fewer pods than minCount: ``waiting``,
    as ``--pod-group`` answers; advise says no change but more pods lets it in."""
    dump = write(tmp_path, "dump.yaml", [node("n1", cpu="8")])
    new = write(tmp_path, "new.yaml", [pod_group("train", 5), job("train", "train", "1", 3)])
    code, out, _ = run(capsys, "schedule", dump, "-f", new, "-o", "json")
    data = json.loads(out)
    assert code == 0 and data["result"] == "waiting" and data["placements"] == {}
    assert {m["message"] for m in data["members"]} == {
        "waiting for minCount pods from a gang to appear in scheduling queue"}
    code, out, _ = run(capsys, "advise", dump, "-f", new, "-o", "json")
    advice = json.loads(out)
    assert "fewer than its minCount 5" in advice["waiting"]
    assert advice["priority"]["lowestValue"] is None


def test_one_line_errors(capsys, tmp_path) -> None:
    """A PodGroup without pods, pods naming a PodGroup that is nowhere, a v1alpha2
    object under 1.37: each a one-line error, exit 2."""
    dump = write(tmp_path, "dump.yaml", [node("n1"), pod_group("dup", 1)])
    alpha = pod_group("old", 2)
    alpha["apiVersion"] = "scheduling.k8s.io/v1alpha2"
    cases = {
        "lonely.yaml": ([pod_group("lonely", 2)], "PodGroup ml/lonely: has no member pods"),
        "ghost.yaml": ([member("w-0", "ghost", "1")],
                       "pod ml/w-0 names PodGroup ml/ghost in spec.schedulingGroup."
                       "podGroupName, but that PodGroup is neither in -f nor"),
        "alpha.yaml": ([alpha, member("w-0", "old", "1")],
                       'no matches for kind "PodGroup" in version '
                       '"scheduling.k8s.io/v1alpha2"'),
        "two.yaml": ([pod_group("a", 1), pod_group("b", 1), member("a-0", "a", "1"),
                      member("b-0", "b", "1")], "-f holds 2 PodGroups or their pods (ml/a, ml/b)"),
        "workload.yaml": ([{"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "Workload",
                            "metadata": {"name": "w", "namespace": "ml"},
                            "spec": {"podGroupTemplates": [
                                {"name": "t", "schedulingPolicy": {"basic": {}}}]}}],
                          "-f holds Workload ml/w but no PodGroup and no pod naming one"),
        "again.yaml": ([pod_group("dup", 1), member("d-0", "dup", "1")],
                       "PodGroup ml/dup: already exists in the cluster"),
        "mixed.yaml": ([pod_group("a", 1), member("a-0", "a", "1"), pod("plain", "1", ns="ml")],
                       "-f holds PodGroup ml/a and pods outside it (ml/plain)"),
    }
    for name, (objects, text) in cases.items():
        for command in ("schedule", "advise"):
            code, _, err = run(capsys, command, dump, "-f", write(tmp_path, name, objects))
            lines = [ln for ln in err.splitlines() if not ln.startswith("note:")]
            assert code == 2 and len(lines) == 1 and text in lines[0], (name, command, err)


def test_the_example_answers_as_documented(capsys) -> None:
    """examples/gang: the 4-worker training gang (minCount 3) preempts batch/sweep (both
    its pods) to take gpu-1..gpu-3; advise needs 2 more nodes like gpu-1 without
    preemption (gpu-1 and two added nodes hold three workers at once)."""
    cluster, new = str(EXAMPLES / "gpu-cluster.yaml"), str(EXAMPLES / "training.yaml")
    code, out, _ = run(capsys, "schedule", cluster, "-f", new, "-o", "json")
    data = json.loads(out)
    assert data["result"] == "preempt" and data["minCount"] == 3
    assert data["victims"] == ["batch/sweep-0", "batch/sweep-1"]
    assert sorted(data["placements"].values()) == ["gpu-1", "gpu-2", "gpu-3"]
    code, out, _ = run(capsys, "advise", cluster, "-f", new, "--node-like", "gpu-1", "-o",
                       "json")
    advice = json.loads(out)
    assert advice["nodes"]["needed"] == 2 and advice["priority"]["lowestValue"] == 101


def test_a_member_refused_by_quota_is_not_created(capsys, tmp_path) -> None:
    """ResourceQuota ``pods: 2`` in ml: the apiserver refuses the third pod the Job
    creates, so the group has two pods; with minCount 3 PreEnqueue then holds them
    (``waiting``), and one warning line names the refused pod."""
    quota = {"apiVersion": "v1", "kind": "ResourceQuota",
             "metadata": {"name": "q", "namespace": "ml"}, "spec": {"hard": {"pods": "2"}}}
    dump = write(tmp_path, "dump.yaml", [node("n1", cpu="8"), quota])
    new = write(tmp_path, "new.yaml", [pod_group("train", 3), job("train", "train", "1", 3)])
    code, out, err = run(capsys, "schedule", dump, "-f", new, "-o", "json")
    data = json.loads(out)
    assert code == 0 and data["result"] == "waiting" and len(data["members"]) == 2
    refused = [ln for ln in err.splitlines() if ln.startswith("warning:")]
    assert len(refused) == 1 and "is not created: pods " in refused[0]
    assert "exceeded quota: q" in refused[0]


def test_templates_that_name_a_group_are_found_in_every_workload_kind() -> None:
    """A controller copies its pod template to each pod, ``spec.schedulingGroup``
    included: a Deployment's, a Job's and a CronJob's job template's pods join the
    group; a Deployment without it does not."""
    from kubepreempt.whatif.gang import names_pod_group

    template = {"spec": {"schedulingGroup": {"podGroupName": "g"}, "containers": []}}
    assert names_pod_group("Deployment", {"spec": {"template": template}})
    assert names_pod_group("Job", {"spec": {"template": template}})
    assert names_pod_group("CronJob", {"spec": {"jobTemplate": {"spec": {
        "template": template}}}})
    assert names_pod_group("Pod", {"spec": template["spec"]})
    assert not names_pod_group("Deployment", {"spec": {"template": {"spec": {}}}})


def test_advise_pod_by_pod_under_1_36_and_pod_with_a_gang(capsys, tmp_path) -> None:
    """advise under 1.36: one line, then the per-pod advice (no ``podGroup``).
    ``schedule --pod`` cannot join a gang of -f: one-line error."""
    dump = write(tmp_path, "dump.yaml", [node("n1", cpu="2"),
                                         pod("waiting", "1", ns="ml")])
    new = write(tmp_path, "new.yaml", [pod_group("train", 2), job("train", "train", "2", 2)])
    code, out, err = run(capsys, "advise", dump, "-f", new, "-o", "json",
                         "--kube-version", "1.36")
    assert code == 0 and err.count("\n") == 1 and "scheduled pod by pod" in err
    assert "podGroup" not in json.loads(out)
    code, _, err = run(capsys, "schedule", dump, "-f", new, "--pod", "ml/waiting")
    assert code == 2 and "--pod cannot join a PodGroup in -f" in err
