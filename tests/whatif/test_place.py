"""Sequential placement of new workloads: hand-worked answers."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from builders import cluster_of, docs_of, node, pdb, pod, priority_class

from kubepreempt.cli import main
from kubepreempt.whatif.place import what_if

CLASSES = (priority_class("low", 100), priority_class("high", 1000))


def deployment(name: str, replicas: int, cpu: str, pc: str = "high", ns: str = "shop",
               **spec) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"priorityClassName": pc, "containers": [
                                      {"name": "c", "image": "x:1",
                                       "resources": {"requests": {"cpu": cpu}}}]}}, **spec}}


def one_node_cluster(*extra):
    """n1: 3 CPUs; batch-1 (low, 500m) and sys-1 (priority 2000, 1 CPU): 1.5 CPU free."""
    return cluster_of(*CLASSES, node("n1", cpu="3"),
                      pod("batch-1", "500m", ns="jobs", node_name="n1", labels={"app": "batch"},
                          spec_extra={"priorityClassName": "low"},
                          start="2024-01-01T00:00:00Z"),
                      pod("sys-1", "1", ns="kube-system", node_name="n1", priority=2000),
                      *extra)


def test_five_replicas_three_fit_fourth_preempts_fifth_pending() -> None:
    """Replicas 1-3 take the free 1.5 CPU; replica 4 fits nowhere, preempts batch-1 (the
    only lower-priority pod) and is nominated to n1; replica 5 sees n1 full (batch-1
    terminates for 30 s, the nominee counts): its dry run removes batch-1 and still
    finds no room beside the nominee (Insufficient cpu): pending."""
    cluster = one_node_cluster()
    result = what_if(cluster, docs_of(deployment("web", 5, "500m")), now=1e9)
    got = [(p.result, p.node, [v.key for v in p.victims]) for p in result.placements]
    assert got == [("scheduled", "n1", []), ("scheduled", "n1", []), ("scheduled", "n1", []),
                   ("preempt", "n1", ["jobs/batch-1"]), ("unschedulable", None, [])]
    assert result.placements[4].message == (
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
        "preemption: 0/1 nodes are available: 1 Insufficient cpu.")
    s = result.summary()
    assert (s["scheduled"], s["preempting"], s["pending"], s["victims"]) == (3, 1, 1, 1)
    assert s["victimsByOwner"] == {"Pod/jobs/batch-1": 1}
    assert s["victimsByPriorityClass"] == {"low": 1}
    # The decisions were applied: batch-1 is gone; once it has, replica 4 binds to n1
    # (the settle pass), replica 5 stays pending.
    assert cluster.find_pod("jobs/batch-1") is None
    assert result.placements[3].bound_node == "n1"
    assert result.placements[4].bound_node is None
    assert s["boundAfterPreemption"] == 1
    assert sum(1 for p in cluster.node_pods[0].values() if p.namespace == "shop") == 4


def test_queue_pops_higher_priority_first_then_creation_order() -> None:
    """PrioritySort: the later, higher-priority Job goes before the earlier Deployment."""
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "etl", "namespace": "a"},
           "spec": {"parallelism": 2, "template": {"spec": {"priority": 5000, "containers": [
               {"name": "c", "resources": {"requests": {"cpu": "500m"}}}]}}}}
    cluster = one_node_cluster()
    result = what_if(cluster, docs_of(deployment("web", 2, "500m"), job), now=1e9)
    assert [p.workload for p in result.placements] == [
        "Job/a/etl", "Job/a/etl", "Deployment/shop/web", "Deployment/shop/web"]
    # The Job takes 1 CPU of the 1.5 free; web's first replica fits, the second preempts.
    assert [p.result for p in result.placements] == ["scheduled", "scheduled", "scheduled",
                                                     "preempt"]


def test_ordered_ready_statefulset_waits_for_its_predecessor() -> None:
    """OrderedReady: db-1 is created only after db-0 is placed; db-1 fits nowhere and
    preempts nothing (the only lower pod is too small to help... here: nothing to
    preempt at priority 100 == low), so db-2 is never created."""
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet",
           "metadata": {"name": "db", "namespace": "shop"},
           "spec": {"replicas": 3, "serviceName": "db", "selector": {"matchLabels": {"a": "db"}},
                    "template": {"metadata": {"labels": {"a": "db"}}, "spec": {
                        "priorityClassName": "low", "containers": [
                            {"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}}
    cluster = one_node_cluster()
    result = what_if(cluster, docs_of(sts), now=1e9)
    assert [(p.pod.name, p.result) for p in result.placements] == [
        ("db-0", "scheduled"), ("db-1", "unschedulable"), ("db-2", "not-created")]
    assert "db-1" in result.placements[2].message


def test_preemption_respects_pdb_and_counts_violation() -> None:
    """Two equal victims-to-be on two nodes; the PDB with 0 allowed disruptions on the
    first makes the scheduler pick the second (fewest PDB violations first)."""
    cluster = cluster_of(
        *CLASSES, node("n1", cpu="1"), node("n2", cpu="1"),
        pod("a", "1", ns="jobs", node_name="n1", labels={"app": "guarded"},
            spec_extra={"priorityClassName": "low"}, start="2024-01-01T00:00:00Z"),
        pod("b", "1", ns="jobs", node_name="n2", labels={"app": "free"},
            spec_extra={"priorityClassName": "low"}, start="2024-01-01T00:00:00Z"),
        pdb("guard", {"app": "guarded"}, allowed=0, ns="jobs"))
    result = what_if(cluster, docs_of(deployment("web", 2, "1")), now=1e9)
    first, second = result.placements
    assert (first.result, first.node, [v.key for v in first.victims]) == (
        "preempt", "n2", ["jobs/b"])
    assert (second.result, second.node, [v.key for v in second.victims]) == (
        "preempt", "n1", ["jobs/a"])
    assert (first.pdb_violations, second.pdb_violations) == (0, 1)
    assert result.summary()["pdbViolations"] == 1


def test_cli_json_and_table(tmp_path: Path, capsys) -> None:
    import yaml

    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(yaml.safe_dump_all([*CLASSES, node("n1", cpu="3"),
                                           pod("sys-1", "1", ns="kube-system",
                                               node_name="n1", priority=2000)]))
    new = tmp_path / "new.yaml"
    new.write_text(yaml.safe_dump(deployment("web", 3, "1")))
    code = main(["schedule", str(cluster), "-f", str(new), "-o", "json", "--seed", "3"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [p["result"] for p in out["pods"]] == ["scheduled", "scheduled", "unschedulable"]
    assert out["summary"]["scheduled"] == 2 and out["summary"]["pending"] == 1
    assert all(p["workload"] == "Deployment/shop/web" for p in out["pods"])
    code = main(["schedule", str(cluster), "-f", str(new)])
    text = capsys.readouterr().out
    assert code == 0 and "3 pod(s): 2 scheduled" in text


def test_cli_needs_pod_or_file(tmp_path: Path, capsys) -> None:
    cluster = tmp_path / "c.yaml"
    cluster.write_text(json.dumps(node("n1")))
    assert main(["schedule", str(cluster)]) == 2


def test_a_preemption_uses_up_the_pdb_allowance_for_the_next() -> None:
    """One allowed disruption over two guarded pods: the first preemption spends it (no
    violation), so the second one violates the budget (the disruption controller would
    recompute disruptionsAllowed = 0 after the first deletion)."""
    cluster = cluster_of(
        *CLASSES, node("n1", cpu="1"), node("n2", cpu="1"),
        *(pod(name, "1", ns="jobs", node_name=n, labels={"app": "guarded"},
              spec_extra={"priorityClassName": "low"}, start="2024-01-01T00:00:00Z")
          for name, n in (("a", "n1"), ("b", "n2"))),
        pdb("guard", {"app": "guarded"}, allowed=1, ns="jobs"))
    result = what_if(cluster, docs_of(deployment("web", 2, "1")), now=1e9)
    assert [p.result for p in result.placements] == ["preempt", "preempt"]
    assert [p.pdb_violations for p in result.placements] == [0, 1]


EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "whatif"


def test_guide_example_worked_by_hand(capsys) -> None:
    """docs/WHAT-IF.md: node-a/node-b have 1.5 CPU free, node-c is tainted. Replica 1
    ties and takes node-a, 2 takes node-b, 3 preempts report-1 on node-a (no PDB
    violation, unlike etl-1). report-1 is terminating for 30 s and still holds its 1.5
    CPU in the scheduler's snapshot, so replica 4 does not fit; its dry run removes
    report-1 again and fits node-a beside the nominee (node-b would violate etl's PDB),
    so it is nominated there, waiting for the same victim. 5 preempts etl-1 on node-b,
    violating its PDB. Once the victims are gone, 3 and 4 bind to node-a, 5 to node-b."""
    code = main(["schedule", str(EXAMPLES / "cluster.yaml"), "-f", str(EXAMPLES / "web.yaml"),
                 "-o", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    got = [(p["result"], p["node"], p["victims"]) for p in out["pods"]]
    assert got == [("scheduled", "node-a", []), ("scheduled", "node-b", []),
                   ("preempt", "node-a", ["batch/report-1"]), ("preempt", "node-a", []),
                   ("preempt", "node-b", ["batch/etl-1"])]
    assert out["pods"][3]["message"] == "waiting for preemption victims on node-a"
    assert [p["pdbViolations"] for p in out["pods"] if p["result"] == "preempt"] == [0, 0, 1]
    assert [p["boundTo"] for p in out["pods"] if p["result"] == "preempt"] == [
        "node-a", "node-a", "node-b"]
    assert out["summary"]["victimsByPriorityClass"] == {"batch-low": 2}
    assert main(["schedule", str(EXAMPLES / "cluster.yaml"), "-f",
                 str(EXAMPLES / "web.yaml")]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "5 pod(s): 2 scheduled, 3 preempting (3 bound once their victims left)" in text
    assert "preempt, then bound" in text


def test_bad_workload_and_existing_pod_are_input_errors(tmp_path: Path, capsys) -> None:
    cluster = tmp_path / "c.yaml"
    cluster.write_text("\n---\n".join(json.dumps(o) for o in (node("n1"),
                                                              pod("p", "1", node_name="n1"))))
    bad = tmp_path / "bad.yaml"
    bad.write_text(json.dumps(deployment("web", -1, "1")))
    assert main(["schedule", str(cluster), "-f", str(bad)]) == 2
    assert "Deployment shop/web: cannot expand: spec.replicas" in capsys.readouterr().err
    dup = tmp_path / "dup.yaml"
    dup.write_text(json.dumps(pod("p", "1")))
    assert main(["schedule", str(cluster), "-f", str(dup)]) == 2
    assert "Pod default/p: already exists" in capsys.readouterr().err


def test_pod_option_joins_the_queue_with_the_new_workloads(tmp_path: Path, capsys) -> None:
    """--pod with -f: the input's pending pod is placed too, in priority order."""
    import yaml

    cluster = tmp_path / "c.yaml"
    cluster.write_text(yaml.safe_dump_all([*CLASSES, node("n1", cpu="2"),
                                           pod("waiting", "1", ns="a", priority=5000)]))
    new = tmp_path / "new.yaml"
    new.write_text(yaml.safe_dump(deployment("web", 2, "1")))
    assert main(["schedule", str(cluster), "-f", str(new), "--pod", "a/waiting",
                 "-o", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(p["pod"], p["result"]) for p in out["pods"]][0] == ("a/waiting", "scheduled")
    assert [p["result"] for p in out["pods"]] == ["scheduled", "scheduled", "unschedulable"]


@pytest.mark.parametrize("seed", range(6))
def test_fast_and_explained_placements_agree(seed: int) -> None:
    """--explain materialises every status, score and candidate; without it the cycle's
    fast paths run. Both must place every pod the same way."""
    rng = random.Random(seed)
    objs = [*CLASSES]
    for i in range(6):
        objs.append(node(f"n{i}", cpu=str(rng.choice([2, 4])),
                         labels={"topology.kubernetes.io/zone": f"z{i % 2}"}))
        for j in range(rng.randrange(4)):
            objs.append(pod(f"p{i}-{j}", f"{rng.choice([300, 700, 1200])}m", ns="jobs",
                            node_name=f"n{i}", labels={"app": rng.choice(["a", "b"])},
                            spec_extra={"priorityClassName": rng.choice(["low", "high"])},
                            start=f"2024-01-01T00:0{j}:00Z"))
    objs.append(pdb("a", {"app": "a"}, allowed=rng.randrange(2), ns="jobs"))
    new = docs_of(deployment("web", 14, f"{rng.choice([500, 900])}m"),
                  deployment("api", 4, "1", pc="low"))
    outcomes = []
    for explain in (False, True):
        result = what_if(cluster_of(*objs), new, now=1e9, explain=explain, seed=seed)
        outcomes.append([(p.pod.key, p.result, p.node, p.bound_node,
                          [v.key for v in p.victims]) for p in result.placements])
    assert outcomes[0] == outcomes[1]


def test_new_pods_go_through_runtime_class_admission() -> None:
    """Controller-created pods are admitted on create: a RuntimeClass's overhead counts
    (500m + 1 CPU overhead on a 2-CPU node: the second replica does not fit)."""
    rc = {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass",
          "metadata": {"name": "kata"}, "handler": "kata", "overhead": {"podFixed": {
              "cpu": "1"}}}
    dep = deployment("web", 2, "500m")
    dep["spec"]["template"]["spec"]["runtimeClassName"] = "kata"
    cluster = cluster_of(*CLASSES, rc, node("n1", cpu="2"))
    result = what_if(cluster, docs_of(dep), now=1e9)
    assert [p.result for p in result.placements] == ["scheduled", "unschedulable"]
    assert result.placements[0].pod.requests["cpu"] == 1500


def test_quota_rejects_the_replicas_beyond_a_priority_scoped_pods_limit(tmp_path, capsys) -> None:
    """high-pods (shop, class high) allows 2 pods and web-keep uses one: of web's 3
    replicas the first is created, the second and third are refused at creation (each
    sees pods=2 used) and never queued; the low-class batch pod is outside the scope."""
    import yaml
    quota = {"apiVersion": "v1", "kind": "ResourceQuota",
             "metadata": {"name": "high-pods", "namespace": "shop"},
             "spec": {"hard": {"pods": "2"}, "scopeSelector": {"matchExpressions": [
                 {"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]}}}
    keep = pod("web-keep", "100m", ns="shop", node_name="n1",
               spec_extra={"priorityClassName": "high"})
    cluster = one_node_cluster(quota, keep)
    batch = pod("batch-2", "100m", ns="shop", spec_extra={"priorityClassName": "low"})
    result = what_if(cluster, docs_of(deployment("web", 3, "100m"), batch), now=1e9)
    got = [(p.pod.key.split("-")[0], p.result) for p in result.placements]
    assert got == [("shop/web", "rejected"), ("shop/web", "rejected"),
                   ("shop/web", "scheduled"), ("shop/batch", "scheduled")]
    second = result.placements[0]
    assert second.message == (
        f'pods "{second.pod.name}" is forbidden: exceeded quota: high-pods, requested: '
        "pods=1, used: pods=2, limited: pods=2")
    assert result.summary()["rejected"] == 2
    assert second.pod.key not in cluster.pending
    # The CLI reports the same, as JSON.
    files = tmp_path / "cluster.yaml"
    files.write_text(yaml.safe_dump_all([*CLASSES, node("n1", cpu="3"), quota, keep]))
    new = tmp_path / "new.yaml"
    new.write_text(yaml.safe_dump(deployment("web", 3, "100m")))
    assert main(["schedule", str(files), "-f", str(new), "-o", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [p["result"] for p in out["pods"]] == ["rejected", "rejected", "scheduled"]
    assert out["pods"][0]["message"].endswith(
        "exceeded quota: high-pods, requested: pods=1, used: pods=2, limited: pods=2")
    assert out["summary"]["rejected"] == 2


def test_quota_refusal_stops_an_ordered_ready_statefulset() -> None:
    """pods=1 in shop: db-0 is created and placed; db-1 is refused; OrderedReady creates
    nothing after it (db-2 not created)."""
    quota = {"apiVersion": "v1", "kind": "ResourceQuota",
             "metadata": {"name": "one", "namespace": "shop"}, "spec": {"hard": {"pods": "1"}}}
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet",
           "metadata": {"name": "db", "namespace": "shop"},
           "spec": {"replicas": 3, "serviceName": "db",
                    "selector": {"matchLabels": {"app": "db"}},
                    "template": {"metadata": {"labels": {"app": "db"}},
                                 "spec": {"containers": [{"name": "c", "image": "x"}]}}}}
    result = what_if(one_node_cluster(quota), docs_of(sts), now=1e9)
    got = [(p.pod.name, p.result) for p in result.placements]
    assert got == [("db-0", "scheduled"), ("db-1", "rejected"), ("db-2", "not-created")]


def test_object_count_quota_refuses_a_workload_object() -> None:
    """count/deployments.apps: 1 in shop: the first new Deployment is created, the second
    refused (no pods), reported under rejectedObjects with the apiserver's message."""
    quota = {"apiVersion": "v1", "kind": "ResourceQuota",
             "metadata": {"name": "objects", "namespace": "shop"},
             "spec": {"hard": {"count/deployments.apps": "1"}}}
    cluster = one_node_cluster(quota)
    result = what_if(cluster, docs_of(deployment("web", 1, "100m"),
                                      deployment("api", 1, "100m")), now=1e9)
    assert [p.workload for p in result.placements] == ["Deployment/shop/web"]
    assert result.summary()["rejectedObjects"] == [{
        "object": "Deployment/shop/api",
        "message": 'deployments.apps "api" is forbidden: exceeded quota: objects, requested: '
                   "count/deployments.apps=1, used: count/deployments.apps=1, "
                   "limited: count/deployments.apps=1"}]
