"""advise: each answer checked by re-running schedule with the suggested change."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import yaml
from builders import cluster_of, docs_of, node, pdb, pod, priority_class

from kubepreempt.api.errors import Source
from kubepreempt.api.objects import parse_node
from kubepreempt.cli import main
from kubepreempt.decide import schedule
from kubepreempt.whatif.advise import advise, fresh, parse_shape
from kubepreempt.whatif.place import expand_documents, what_if

NOW = 1e9
CLASSES = (priority_class("low", 100), priority_class("mid", 500), priority_class("high", 1000))


def base_objects(*extra):
    """n1: 3 CPUs; batch-1 (low, 500m) and sys-1 (priority 2000, 1 CPU): 1.5 CPU free."""
    return (*CLASSES, node("n1", cpu="3"),
            pod("batch-1", "500m", ns="jobs", node_name="n1", labels={"app": "batch"},
                spec_extra={"priorityClassName": "low"}, start="2024-01-01T00:00:00Z"),
            pod("sys-1", "1", ns="kube-system", node_name="n1", priority=2000), *extra)


def pod_advice(cluster, key: str, **kw):
    target = cluster.find_pod(key)
    return advise(cluster, [(f"Pod/{key}", [target], False)], subject=key, now=NOW, **kw)


def test_lowest_priority_and_class_rechecked_with_schedule() -> None:
    """A 2-CPU pod at priority 50 needs batch-1 (priority 100) gone: the lowest value is
    101 (preempting needs a strictly higher priority); the lowest class at or above is
    mid (500)."""
    cluster = cluster_of(*base_objects(pod("big", "2", ns="shop", priority=50)))
    a = pod_advice(cluster, "shop/big")
    assert a.current["result"] == "unschedulable"
    assert a.priority["lowestValue"] == 101
    assert a.priority["victims"] == ["jobs/batch-1"]
    assert a.priority["lowestClass"]["name"] == "mid"
    # Re-run the real decision with the suggestions, and just below.
    big = cluster.find_pod("shop/big")
    assert schedule(cluster, fresh(big, priority=101), now=NOW).victims == ["jobs/batch-1"]
    assert schedule(cluster, fresh(big, priority=100), now=NOW).result == "unschedulable"
    assert schedule(cluster, fresh(big, priority=500), now=NOW).result == "preempt"
    # advise left the cluster as it was.
    assert cluster.find_pod("jobs/batch-1").node_name == "n1"
    assert "shop/big" in cluster.pending and cluster.find_pod("shop/big") is big


def test_pdb_that_changes_the_chosen_node_is_reported() -> None:
    """Two 1-CPU nodes, each with one low pod; a's budget allows no disruption, so the
    pod preempts b on n2. Lifting the budget, the tie goes to n1 (first name): guard
    blocks; it is not violated."""
    cluster = cluster_of(
        *CLASSES, node("n1", cpu="1"), node("n2", cpu="1"),
        pod("a", "1", ns="jobs", node_name="n1", labels={"app": "guarded"},
            spec_extra={"priorityClassName": "low"}, start="2024-01-01T00:00:00Z"),
        pod("b", "1", ns="jobs", node_name="n2", labels={"app": "free"},
            spec_extra={"priorityClassName": "low"}, start="2024-01-01T00:00:00Z"),
        pdb("guard", {"app": "guarded"}, allowed=0, ns="jobs"),
        pod("new", "1", ns="shop", priority=1000))
    before = (cluster.requested.copy(), set(cluster.pods), set(cluster.pending),
              [p.disruptions_allowed for p in cluster.pdbs])
    a = pod_advice(cluster, "shop/new")
    after = (cluster.requested, set(cluster.pods), set(cluster.pending),
             [p.disruptions_allowed for p in cluster.pdbs])
    assert (after[0] == before[0]).all() and after[1:] == before[1:]  # every trial undone
    assert (a.current["node"], a.current["victims"]) == ("n2", ["jobs/b"])
    assert a.pdbs["violated"] == []
    assert [b["pdb"] for b in a.pdbs["blocking"]] == ["jobs/guard"]
    assert a.pdbs["blocking"][0]["withoutIt"]["node"] == "n1"
    cluster.pdbs[0].disruptions_allowed = 5  # re-run schedule with the budget lifted
    assert schedule(cluster, "shop/new", now=NOW).node == "n1"


def test_violated_pdb_is_reported() -> None:
    cluster = cluster_of(*base_objects(pdb("guard", {"app": "batch"}, allowed=0, ns="jobs"),
                                       pod("big", "2", ns="shop", priority=1000)))
    a = pod_advice(cluster, "shop/big")
    assert a.pdbs["violated"] == ["jobs/guard"]
    assert a.current["pdbViolations"] == 1


def test_nodes_to_add_for_a_workload_rechecked_with_schedule_f() -> None:
    """Three 2-CPU replicas at priority 50 (nothing to preempt below them but batch-1 is
    100): none fit. A 4-CPU node takes two: two nodes are needed, one is not enough."""
    dep = {"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": "web", "namespace": "shop"},
           "spec": {"replicas": 3, "template": {"metadata": {"labels": {"app": "web"}},
                                                "spec": {"priority": 50, "containers": [
                                                    {"name": "c", "resources": {
                                                        "requests": {"cpu": "2"}}}]}}}}
    cluster = cluster_of(*base_objects())
    workloads = [(k, p, o) for k, p, o, _ in expand_documents(cluster, docs_of(dep))]
    shape = parse_shape("cpu=4,memory=8Gi")
    a = advise(cluster, workloads, subject="web", node_template=shape, now=NOW)
    assert a.nodes["needed"] == 2
    assert len(cluster.nodes) == 1  # the added nodes were removed again
    for k, want in ((1, 2), (2, 3)):
        trial_cluster = cluster_of(*base_objects(*(node(f"x{i}", cpu="4") for i in range(k))))
        got = what_if(trial_cluster, docs_of(dep), now=NOW, preemption=False)
        assert got.summary()["scheduled"] == want
    # A shape too small for one replica: no number of nodes helps.
    a = advise(cluster, workloads, subject="web", node_template=parse_shape("cpu=1"), now=NOW)
    assert a.nodes["needed"] is None
    assert a.nodes["rejectedBy"].startswith("NodeResourcesFit: Insufficient cpu")


def test_filter_suggestions_rechecked_with_schedule() -> None:
    """t1 has one untolerated taint, t2 two: the smallest change is one toleration (it
    admits t1). The spread constraint rejects s1 (skew 3) and s2 (skew 2; s3, full, holds
    the minimum 0): raising maxSkew to 2 admits s2."""
    taint = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}
    cluster = cluster_of(
        node("t1", taints=[taint]),
        node("t2", taints=[taint, {"key": "x", "effect": "NoSchedule"}]),
        pod("p", "1", ns="shop"))
    a = pod_advice(cluster, "shop/p")
    (f,) = a.filters
    assert (f["plugin"], f["nodes"]) == ("TaintToleration", 2)
    assert f["suggestion"]["change"] == "tolerate dedicated=gpu:NoSchedule"
    assert (f["suggestion"]["admits"], f["suggestion"]["node"]) == (1, "t1")
    manifest = pod("p2", "1", ns="shop", spec_extra={"tolerations": [
        {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}]})
    assert schedule(cluster_of(*[n for n in (node("t1", taints=[taint]),)], manifest),
                    "shop/p2").node == "t1"

    sel = {"matchLabels": {"app": "x"}}
    hard = [{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "labelSelector": sel}]
    objs = [node("s1"), node("s2"), node("s3", cpu="1"),
            *(pod(f"a{i}", "100m", ns="shop", node_name="s1", labels={"app": "x"})
              for i in range(2)),
            pod("b0", "100m", ns="shop", node_name="s2", labels={"app": "x"}),
            pod("filler", "1", ns="shop", node_name="s3")]
    cluster = cluster_of(*objs, pod("p", "1", ns="shop", labels={"app": "x"},
                                    spec_extra={"topologySpreadConstraints": hard}))
    a = pod_advice(cluster, "shop/p")
    spread = next(f for f in a.filters if f["plugin"] == "PodTopologySpread")
    assert spread["nodes"] == 2
    assert spread["suggestion"]["change"] == ("raise maxSkew of the kubernetes.io/hostname "
                                              "constraint from 1 to 2")
    assert spread["suggestion"]["node"] == "s2"
    relaxed = [{**hard[0], "maxSkew": 2}]
    again = cluster_of(*objs, pod("p", "1", ns="shop", labels={"app": "x"},
                                  spec_extra={"topologySpreadConstraints": relaxed}))
    assert schedule(again, "shop/p").node == "s2"


def test_node_selector_suggestion_and_node_like_rejection(tmp_path: Path, capsys) -> None:
    objs = [*base_objects()]
    cluster_file = tmp_path / "c.yaml"
    cluster_file.write_text(yaml.safe_dump_all(objs))
    new = tmp_path / "p.yaml"
    new.write_text(yaml.safe_dump(pod("api", "1", ns="shop", priority=50,
                                      spec_extra={"nodeSelector": {"disk": "ssd"}})))
    code = main(["advise", str(cluster_file), "-f", str(new), "--node-like", "n1",
                 "-o", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["priority"]["lowestValue"] is None
    assert out["nodes"]["needed"] is None
    assert out["nodes"]["rejectedBy"].startswith("NodeAffinity")
    (f,) = out["filters"]["plugins"]
    assert f["suggestion"]["change"] == "drop nodeSelector disk"
    assert f["suggestion"]["result"] == "scheduled"
    code = main(["advise", str(cluster_file), "-f", str(new)])
    assert code == 0 and "drop nodeSelector disk" in capsys.readouterr().out
    assert main(["advise", str(cluster_file)]) == 2


def test_parse_shape() -> None:
    n = parse_shape("cpu=8,memory=32Gi", ["zone=a"], ["gpu=yes:NoSchedule"])
    assert n.allocatable == {"cpu": 8000, "memory": 32 * 1024**3, "pods": 110}
    assert n.labels == {"zone": "a"} and n.taints[0].key == "gpu"
    assert parse_node(node("x"), Source()).name == "x"


def test_guide_advise_example(capsys) -> None:
    """docs/WHAT-IF.md: the 3-CPU train pod at 100 preempts nothing; at 101 it preempts
    report-1 on node-a; the etl budget steers it away from node-b; one node like node-a
    fits it; a toleration for dedicated=ml admits node-c."""
    ex = Path(__file__).resolve().parents[2] / "examples" / "whatif"
    code = main(["advise", str(ex / "cluster.yaml"), "-f", str(ex / "train.yaml"),
                 "--node-like", "node-a", "-o", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["priority"]["lowestValue"] == 101
    assert out["priority"]["victims"] == ["batch/report-1"]
    assert out["priority"]["lowestClass"]["name"] == "web-high"
    assert [b["pdb"] for b in out["pdbs"]["blocking"]] == ["batch/etl"]
    assert out["nodes"]["needed"] == 1
    taint = next(f for f in out["filters"]["plugins"] if f["plugin"] == "TaintToleration")
    assert taint["suggestion"]["node"] == "node-c"


def test_inter_pod_and_node_affinity_suggestions_rechecked() -> None:
    """Required anti-affinity to app=x per hostname rejects both nodes (each runs an x
    pod of equal priority, so no preemption); dropping the term admits both. A required
    node affinity no node satisfies: dropping it admits every node it rejected."""
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "x"}},
         "topologyKey": "kubernetes.io/hostname"}]}}
    objs = [node("n1"), node("n2"),
            pod("x1", "100m", node_name="n1", labels={"app": "x"}),
            pod("x2", "100m", node_name="n2", labels={"app": "x"})]
    cluster = cluster_of(*objs, pod("p", "1", spec_extra={"affinity": anti}))
    a = pod_advice(cluster, "default/p")
    (f,) = a.filters
    assert (f["plugin"], f["nodes"]) == ("InterPodAffinity", 2)
    assert f["suggestion"]["change"] == ("drop required pod anti-affinity term 0 "
                                         "(topologyKey kubernetes.io/hostname)")
    assert f["suggestion"]["admits"] == 2
    assert schedule(cluster_of(*objs, pod("q", "1")), "default/q").result == "scheduled"

    required = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": "gpu", "operator": "In", "values": ["a100"]}]}]}}}
    cluster = cluster_of(*objs, pod("p", "1", spec_extra={"affinity": required}))
    a = pod_advice(cluster, "default/p")
    (f,) = a.filters
    assert (f["plugin"], f["suggestion"]["change"], f["suggestion"]["admits"]) == (
        "NodeAffinity", "drop the required node affinity", 2)


@pytest.mark.parametrize("seed", range(4))
def test_advise_leaves_random_clusters_exactly_as_they_were(seed: int) -> None:
    """Every trial (priorities, PDB lifts, added nodes, filter changes) is undone."""
    rng = random.Random(seed)
    objs = [*CLASSES]
    for i in range(5):
        objs.append(node(f"n{i}", cpu=str(rng.choice([2, 4]))))
        for j in range(rng.randrange(4)):
            objs.append(pod(f"p{i}-{j}", f"{rng.choice([300, 700, 1200])}m", ns="jobs",
                            node_name=f"n{i}", labels={"app": rng.choice(["a", "b"])},
                            spec_extra={"priorityClassName": rng.choice(["low", "mid"])},
                            start=f"2024-01-01T00:0{j}:00Z"))
    objs += [pdb("a", {"app": "a"}, allowed=rng.randrange(2), ns="jobs"),
             pod("waiting", "1", ns="jobs", priority=700,
                 status_extra={"nominatedNodeName": "n0"})]
    cluster = cluster_of(*objs)
    dep = {"apiVersion": "apps/v1", "kind": "Deployment",
           "metadata": {"name": "web", "namespace": "shop"},
           "spec": {"replicas": 4, "template": {"metadata": {"labels": {"app": "web"}},
                                                "spec": {"priority": 300, "containers": [
                                                    {"name": "c", "resources": {
                                                        "requests": {"cpu": "1500m"}}}]}}}}

    def state():
        return (cluster.requested.tolist(), len(cluster.nodes),
                sorted((k, p.node_name) for k, p in cluster.pods.items()),
                sorted((k, p.nominated_node_name) for k, p in cluster.pending.items()),
                [p.disruptions_allowed for p in cluster.pdbs])

    before = state()
    workloads = [(k, p, o) for k, p, o, _ in expand_documents(cluster, docs_of(dep))]
    advise(cluster, workloads, subject="web", node_template=parse_shape("cpu=4"), now=NOW)
    assert state() == before


def test_a_pod_that_fits_may_have_any_priority() -> None:
    """It fits without preempting, and no nominee is in the way: the int32 minimum."""
    cluster = cluster_of(*base_objects(pod("small", "500m", ns="shop", priority=50)))
    a = pod_advice(cluster, "shop/small")
    assert a.priority["lowestValue"] == -(2**31)
    assert a.priority["result"] == "scheduled"
    big = cluster.find_pod("shop/small")
    assert schedule(cluster, fresh(big, priority=-(2**31)), now=NOW).result == "scheduled"


def test_quota_refusal_is_the_current_outcome() -> None:
    """high-pods allows no pod of class high in shop: the new pod is refused at creation
    (ResourceQuota admission), so as it is it is `rejected`, with the apiserver's
    message; a trial at class mid (outside the quota's scope) places it."""
    quota = {"apiVersion": "v1", "kind": "ResourceQuota",
             "metadata": {"name": "high-pods", "namespace": "shop"},
             "spec": {"hard": {"pods": "0"}, "scopeSelector": {"matchExpressions": [
                 {"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}]}}}
    cluster = cluster_of(*base_objects(quota))
    new = pod("p2", "1", ns="shop", spec_extra={"priorityClassName": "high"})
    workloads = [(k, pods, o) for k, pods, o, _ in
                 expand_documents(cluster, docs_of(new), seed=0)]
    a = advise(cluster, workloads, subject="p2", now=NOW)
    assert a.current["result"] == "rejected" and a.current["rejected"] == 1
    assert a.current["message"] == (
        'pods "p2" is forbidden: exceeded quota: high-pods, requested: pods=1, used: '
        "pods=0, limited: pods=0")
    assert a.current["placed"] is False
