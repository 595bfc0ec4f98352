"""The pick cache keeps InterPodAffinity per node only while that is exact.

``InterPodAffinity.node_local_now`` lets the per-signature pick cache refresh one node per
bind when every topology key counted has one node per domain (hostname). Each sequence
here is run through ``workloads.run`` with every cycle also run materialised (no caches),
and the placements are the ones upstream's filter gives, worked out by hand: a bind must
make the *other* nodes of its domain infeasible where a domain holds several nodes.
"""

from __future__ import annotations

from kubepreempt import workloads
from kubepreempt.cluster import build_cluster
from kubepreempt.scheduler import cycle
from tests.builders import docs_of, node, pod
from tests.builders.one_cycle import NOW, spy

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"


def _anti(key: str) -> dict:
    return {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": key}]}}}


def _run(monkeypatch, nodes: list[dict], pods: list[dict]) -> dict[str, str]:
    checked, _ = spy(cycle.schedule_one)
    monkeypatch.setattr(workloads, "schedule_one", checked)
    cluster = build_cluster(docs_of(*nodes, *pods), warn=False)
    pending = [cluster.pending.pop(f"default/{p['metadata']['name']}")
               for p in pods if not p["spec"].get("nodeName")]
    stats = workloads.run(cluster, pending, keep_placements=True, now=NOW)
    return stats.placements


def _zoned(n_per_zone: int) -> list[dict]:
    return [node(f"n{z}{i}", labels={ZONE: f"z{z}"}) for z in range(2) for i in range(n_per_zone)]


def test_own_zone_anti_affinity_is_not_kept_per_node(monkeypatch) -> None:
    # Three identical self-anti-affine pods over two zones of two nodes: one per zone,
    # the third fits nowhere (InterPodAffinity: "didn't match pod anti-affinity rules").
    pods = [pod(f"p{i}", "100m", labels={"app": "x"}, spec_extra=_anti(ZONE)) for i in range(3)]
    placed = _run(monkeypatch, _zoned(2), pods)
    assert len(placed) == 2
    assert {name[1] for name in placed.values()} == {"0", "1"}  # one node in each zone


def test_existing_zone_anti_affinity_is_not_kept_per_node(monkeypatch) -> None:
    # n00 (zone 0) and n11 (zone 1) tie for the first app=x pod, which takes n00 (first
    # in node order). A guard with zone anti-affinity against app=x is then pinned to n10
    # (zone 1 holds no app=x pod): the whole of zone 1 now rejects app=x pods ("didn't
    # satisfy existing pods anti-affinity rules"), so they go to n00 although the empty
    # n11 would score higher.
    # A bound pod with hostname anti-affinity against app=x on n20 makes InterPodAffinity
    # run (node-locally) for the first app=x pod, so its cache entry exists before the
    # guard binds.
    nodes = [node("n00", "8", labels={ZONE: "z0"}), node("n10", labels={ZONE: "z1"}),
             node("n11", "8", labels={ZONE: "z1"}), node("n20", labels={ZONE: "z2"})]
    host_guard = pod("host-guard", "3900m", node_name="n20", labels={"app": "g"},
                     spec_extra=_anti(HOST))
    guard = pod("guard", "100m", labels={"app": "g"},
                spec_extra={"nodeSelector": {HOST: "n10"}, **_anti(ZONE)})
    xs = [pod(f"p{i}", "100m", labels={"app": "x"}) for i in range(3)]
    placed = _run(monkeypatch, nodes, [host_guard, xs[0], guard, *xs[1:]])
    assert placed == {"default/p0": "n00", "default/guard": "n10",
                      "default/p1": "n00", "default/p2": "n00"}


def test_hostname_anti_affinity_one_pod_per_node(monkeypatch) -> None:
    # Hostname keys: the cached per-node path. Four nodes, five self-anti-affine pods:
    # one per node, the fifth pending.
    pods = [pod(f"p{i}", "100m", labels={"app": "x"}, spec_extra=_anti(HOST)) for i in range(5)]
    placed = _run(monkeypatch, _zoned(2), pods)
    assert sorted(placed.values()) == ["n00", "n01", "n10", "n11"]


def test_shared_hostname_label_is_a_domain_of_two_nodes(monkeypatch) -> None:
    # Two nodes labelled with the same hostname value form one domain: a bind on either
    # rejects both for the next self-anti-affine pod.
    nodes = [node("a1", labels={HOST: "a"}), node("a2", labels={HOST: "a"}),
             node("b1", labels={HOST: "b"})]
    pods = [pod(f"p{i}", "100m", labels={"app": "x"}, spec_extra=_anti(HOST)) for i in range(3)]
    placed = _run(monkeypatch, nodes, pods)
    assert len(placed) == 2
    assert sorted(v[0] for v in placed.values()) == ["a", "b"]


def test_required_zone_affinity_is_not_kept_per_node(monkeypatch) -> None:
    # app=y pods need an app=x pod in their zone. At first only zone 0 (n00) has one;
    # once an app=x pod binds on n10, zone 1 qualifies and the larger, emptier n11
    # scores highest for the next app=y pod.
    nodes = [node("n00", labels={ZONE: "z0"}), node("n10", labels={ZONE: "z1"}),
             node("n11", "16", labels={ZONE: "z1"})]
    x0 = pod("x0", "100m", node_name="n00", labels={"app": "x"})
    affine = {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": ZONE}]}}}
    ys = [pod(f"y{i}", "100m", labels={"app": "y"}, spec_extra=affine) for i in range(2)]
    x1 = pod("x1", "100m", labels={"app": "x"}, spec_extra={"nodeSelector": {HOST: "n10"}})
    placed = _run(monkeypatch, nodes, [x0, ys[0], x1, ys[1]])
    assert placed == {"default/y0": "n00", "default/x1": "n10", "default/y1": "n11"}


def test_pods_differing_only_in_labels_get_their_own_verdicts(monkeypatch) -> None:
    # Hostname anti-affinity of bound pods: guard-x on n-a rejects app=x pods, guard-z on
    # n-b rejects app=z pods. The app=x pod takes n-c (tied with n-b, first in node
    # order); the otherwise identical app=z pod then ties n-a and n-c and takes n-a, never
    # the emptier n-b (both cycles run InterPodAffinity node-locally).
    nodes = [node("n-a"), node("n-c"), node("n-b")]
    anti_z = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "z"}}, "topologyKey": HOST}]}}}
    guard_x = pod("guard-x", "100m", node_name="n-a", labels={"app": "g"},
                  spec_extra=_anti(HOST))
    guard_z = pod("guard-z", "100m", node_name="n-b", labels={"app": "g"}, spec_extra=anti_z)
    x = pod("x", "100m", labels={"app": "x"})
    z = pod("z", "100m", labels={"app": "z"})
    assert _run(monkeypatch, nodes, [guard_x, guard_z, x, z]) == {
        "default/x": "n-c", "default/z": "n-a"}
