"""System-default topology spreading: helper.DefaultSelector and defaultingType System."""

from __future__ import annotations

import numpy as np
from builders import cluster_of, node, pod

from kubepreempt.api.selectors import LabelSelector, Requirement
from kubepreempt.scheduler.framework import CycleState
from kubepreempt.scheduler.plugins.pod_topology_spread import PodTopologySpread

ZONE = "topology.kubernetes.io/zone"


def owned(kind: str, name: str, api: str = "apps/v1") -> dict:
    return {"ownerReferences": [{"apiVersion": api, "kind": kind, "name": name,
                                 "uid": "u", "controller": True}]}


def service(name: str, selector: dict | None, ns: str = "default") -> dict:
    spec = {} if selector is None else {"selector": selector}
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": name, "namespace": ns}, "spec": spec}


def controller(kind: str, name: str, selector, api: str = "apps/v1") -> dict:
    return {"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": selector}}


def selector_of(cluster, key: str) -> LabelSelector | None:
    return cluster.spread_sources.default_selector(cluster.find_pod(key))


def test_default_selector_merges_matching_services_and_owner() -> None:
    """DefaultSelector: matching Services' selectors merged (a Service without a selector
    or in another namespace, or not matching, adds nothing), then the controller's."""
    incoming = pod("p", labels={"app": "web", "tier": "fe"},
                   meta_extra=owned("ReplicaSet", "web-1"))
    cluster = cluster_of(
        node("n1"), incoming,
        service("s1", {"app": "web"}), service("s2", {"tier": "fe"}),
        service("nosel", None), service("other", {"app": "db"}),
        service("elsewhere", {"app": "web", "x": "y"}, ns="kube-system"),
        controller("ReplicaSet", "web-1", {"matchExpressions": [
            {"key": "app", "operator": "Exists"}]}))
    assert selector_of(cluster, "default/p") == LabelSelector((
        Requirement("app", "In", ("web",)), Requirement("tier", "In", ("fe",)),
        Requirement("app", "Exists")))


def test_default_selector_owner_kinds() -> None:
    """RC merges its map (apiVersion v1); StatefulSet adds requirements (apps/v1); an
    owner of another kind, another apiVersion, or missing from the input adds nothing."""
    cluster = cluster_of(
        node("n1"),
        pod("rc-pod", labels={"a": "1"}, meta_extra=owned("ReplicationController", "rc", "v1")),
        pod("ss-pod", labels={"a": "1"}, meta_extra=owned("StatefulSet", "ss")),
        pod("job-pod", labels={"a": "1"}, meta_extra=owned("Job", "j", "batch/v1")),
        pod("old-api", labels={"a": "1"}, meta_extra=owned("ReplicaSet", "rs", "extensions/v1")),
        pod("missing", labels={"a": "1"}, meta_extra=owned("ReplicaSet", "gone")),
        controller("ReplicationController", "rc", {"a": "1"}, api="v1"),
        controller("StatefulSet", "ss", {"matchLabels": {"a": "1"}}),
        controller("ReplicaSet", "rs", {"matchLabels": {"a": "1"}}))
    one = LabelSelector((Requirement("a", "In", ("1",)),))
    assert selector_of(cluster, "default/rc-pod") == one
    assert selector_of(cluster, "default/ss-pod") == one
    for name in ("job-pod", "old-api", "missing"):
        assert selector_of(cluster, f"default/{name}") is None


def _scores(cluster, key: str) -> dict[str, int]:
    target = cluster.find_pod(key)
    state = CycleState(target, cluster, cluster.request_vector(target))
    plugin = PodTopologySpread()
    idx = np.arange(len(cluster.nodes), dtype=np.int64)
    if not plugin.score_relevant(state):
        return {}
    plugin.pre_score(state, idx)
    return dict(zip((n.name for n in cluster.nodes), plugin.score(state, idx).tolist(),
                    strict=True))


def test_system_defaults_do_not_require_every_topology_key() -> None:
    """Node a (zone z1) holds 2 matching pods, node b has no zone label and none.
    System defaults (requireAllTopologies false): hostname weight ln(2+2), zone domains
    {z1, ""} weight ln(4); a = round(2w+2 + 2w+4) = 12, b = round(0+2) = 2 (b skips the
    zone constraint); normalised a = 100*(12+2-12)//12 = 16, b = 100*(12+2-2)//12 = 100.
    The same constraints written on the pod ignore b (score 0) and give a 100."""
    owner = owned("ReplicaSet", "web-1")
    rs = controller("ReplicaSet", "web-1", {"matchLabels": {"app": "web"}})
    running = [pod(f"w{i}", node_name="a", labels={"app": "web"}, meta_extra=owner)
               for i in range(2)]
    nodes = [node("a", labels={ZONE: "z1"}), node("b")]
    cluster = cluster_of(*nodes, *running, rs,
                         pod("new", labels={"app": "web"}, meta_extra=owner))
    assert _scores(cluster, "default/new") == {"a": 16, "b": 100}
    own = [{"maxSkew": 3, "topologyKey": "kubernetes.io/hostname",
            "whenUnsatisfiable": "ScheduleAnyway",
            "labelSelector": {"matchLabels": {"app": "web"}}},
           {"maxSkew": 5, "topologyKey": ZONE, "whenUnsatisfiable": "ScheduleAnyway",
            "labelSelector": {"matchLabels": {"app": "web"}}}]
    cluster = cluster_of(*nodes, *running, rs,
                         pod("new", labels={"app": "web"}, meta_extra=owner,
                             spec_extra={"topologySpreadConstraints": own}))
    assert _scores(cluster, "default/new") == {"a": 100, "b": 0}


def test_pods_with_own_constraints_get_no_defaults() -> None:
    """A pod with only DoNotSchedule constraints has no soft constraints: no scoring."""
    hard = [{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
             "labelSelector": {"matchLabels": {"app": "web"}}}]
    cluster = cluster_of(node("a"), service("s", {"app": "web"}),
                         pod("new", labels={"app": "web"},
                             spec_extra={"topologySpreadConstraints": hard}))
    assert _scores(cluster, "default/new") == {}


def test_match_counts_follow_binds_and_removals() -> None:
    """The per-selector count cache sees pods bound and removed after it was built."""
    cluster = cluster_of(node("a"), node("b"), service("s", {"app": "web"}),
                         pod("w0", node_name="a", labels={"app": "web"}),
                         pod("new", labels={"app": "web"}))
    first = _scores(cluster, "default/new")
    assert first["b"] > first["a"]
    extra = cluster_of(pod("w1", node_name="b", labels={"app": "web"}),
                       pod("w2", node_name="b", labels={"app": "web"}), node("b")).pods
    for key in ("default/w1", "default/w2"):
        p = extra[key]
        p.node_name = ""
        cluster.bind(p, "b")
    second = _scores(cluster, "default/new")
    assert second["a"] > second["b"]
    cluster.remove(cluster.pods["default/w1"])
    cluster.remove(cluster.pods["default/w2"])
    assert _scores(cluster, "default/new") == first
