"""The snapshot's per-PodGroup index of bound pods and the group cycle's one-row paths.

The index must answer exactly what a scan of every bound pod answers (the pods naming the
group in ``spec.schedulingGroup.podGroupName``, in ``Snapshot.pods`` order) through every
way a pod is bound, re-bound or removed; the assumed pods' copies and the signature cache's
one-node refresh must leave decisions as the reference path makes them.
"""

from __future__ import annotations

from builders import cluster_of, node, pod

from kubepreempt.api.errors import Source
from kubepreempt.api.objects import parse_pod
from kubepreempt.api.podgroup import pod_group_name
from kubepreempt.scheduler.cycle import schedule_one
from kubepreempt.scheduler.gang.assume import _shallow_copy
from kubepreempt.scheduler.gang.members import members_of
from kubepreempt.scheduler.scheduler import Scheduler

NS = "team"


def member(name: str, group: str = "pg", node_name: str | None = None, ns: str = NS):
    return pod(name, "100m", ns=ns, node_name=node_name,
               spec_extra={"schedulingGroup": {"podGroupName": group}})


def scanned(cluster, namespace: str, name: str) -> list[str]:
    """What the index replaces: every bound pod, in order, naming the group."""
    return [p.key for p in cluster.pods.values()
            if p.namespace == namespace and pod_group_name(p) == name]


def keys(pods) -> list[str]:
    return [p.key for p in pods]


def test_index_built_on_first_read_matches_a_scan_and_follows_bind_and_remove():
    cluster = cluster_of(node("n1"), node("n2"), member("a", node_name="n1"),
                         member("b", group="other", node_name="n1"),
                         member("c", node_name="n2"), member("d", ns="elsewhere", node_name="n2"),
                         pod("plain", "100m", ns=NS, node_name="n1"), member("e"))
    assert keys(cluster.bound_group_members(NS, "pg")) == scanned(cluster, NS, "pg") \
        == [f"{NS}/a", f"{NS}/c"]
    assert keys(cluster.bound_group_members("elsewhere", "pg")) == ["elsewhere/d"]
    assert cluster.bound_group_members(NS, "missing") == []
    pending = cluster.pending[f"{NS}/e"]
    cluster.bind(pending, "n2")  # kept from now on
    assert keys(cluster.bound_group_members(NS, "pg")) == scanned(cluster, NS, "pg") \
        == [f"{NS}/a", f"{NS}/c", f"{NS}/e"]
    cluster.remove(cluster.pods[f"{NS}/a"])
    assert keys(cluster.bound_group_members(NS, "pg")) == scanned(cluster, NS, "pg") \
        == [f"{NS}/c", f"{NS}/e"]


def test_a_key_re_bound_to_another_pod_object_answers_with_the_bound_one():
    cluster = cluster_of(node("n1"), member("a", node_name="n1"), member("b", node_name="n1"))
    cluster.bound_group_members(NS, "pg")
    resolve = cluster.priority.resolve
    cluster.remove(cluster.pods[f"{NS}/a"])  # deleted, then created again in another group
    moved = parse_pod(member("a", group="moved", node_name="n1"), Source(), resolve)
    cluster.bind(moved, "n1")
    # Bound again over the old object without a removal: the old entry is left behind.
    replaced = parse_pod(member("b", group="moved", node_name="n1"), Source(), resolve)
    cluster.bind(replaced, "n1")
    assert cluster.bound_group_members(NS, "pg") == [] == \
        [p for p in cluster.pods.values() if pod_group_name(p) == "pg"]
    # ``pods`` kept b's first place: the index answers in that order too.
    assert keys(cluster.bound_group_members(NS, "moved")) == scanned(cluster, NS, "moved") \
        == [f"{NS}/b", f"{NS}/a"]
    cluster.remove(moved)
    assert cluster.bound_group_members(NS, "moved") == [replaced]


def test_bind_many_keeps_the_index():
    cluster = cluster_of(node("n1"))
    assert cluster.bound_group_members(NS, "pg") == []
    pods = [parse_pod(member(n, node_name="n1"), Source(), cluster.priority.resolve)
            for n in ("x", "y")]
    cluster.bind_many(pods)
    assert keys(cluster.bound_group_members(NS, "pg")) == [f"{NS}/x", f"{NS}/y"]


def test_members_of_reads_bound_members_from_the_index_and_pending_ones_in_cycle_order():
    cluster = cluster_of(node("n1"), member("bound", node_name="n1"), member("p2"),
                         member("p1"), member("other", group="x"))
    members = members_of(cluster, NS, "pg")
    assert keys(members.assigned) == [f"{NS}/bound"]
    assert keys(members.unscheduled) == [f"{NS}/p2", f"{NS}/p1"]  # equal: input order


def test_the_assumed_copy_has_every_field_of_the_pod_and_leaves_it_alone():
    cluster = cluster_of(node("n1"), member("p"))
    original = cluster.pending[f"{NS}/p"]
    copy = _shallow_copy(original)
    assert type(copy) is type(original) and copy is not original
    assert all(getattr(copy, s) is getattr(original, s) for s in type(original).__slots__)
    copy.node_name = "n1"
    assert original.node_name == ""


def test_one_node_refresh_gives_the_reference_pick():
    # Each pod bound changes one node: the cached pick after it (a one-node refresh of
    # the signature's totals) must be the reference path's (every node filtered and
    # scored afresh), down to the pod that no longer fits anywhere.
    objects = [node("n0", cpu="2"), node("n1", cpu="3", memory="4Gi"), node("n2", cpu="2"),
               node("n3", cpu="1")] + [pod(f"m{i}", "700m", "1Gi", ns=NS) for i in range(10)]
    cached, reference = cluster_of(*objects), cluster_of(*objects)
    fast, slow = Scheduler(cached), Scheduler(reference)
    slow.use_cached_statuses = False
    slow.fast_pick = lambda *args: None  # type: ignore[method-assign]
    picks = []
    for i in range(10):
        key = f"{NS}/m{i}"
        a = schedule_one(fast, cached.pending[key], preemption=False)
        b = schedule_one(slow, reference.pending[key], preemption=False)
        assert (a.result, a.node_name) == (b.result, b.node_name)
        picks.append(a.node_name)
        if a.node_name is not None:
            cached.bind(cached.pending[key], a.node_name)
            reference.bind(reference.pending[key], b.node_name)
    # 2 + 4 + 2 + 1 pods of 700m fit on 2, 3, 2 and 1 cpu: the tenth does not.
    assert picks[-1] is None
    assert sorted(picks[:-1]) == ["n0", "n0", "n1", "n1", "n1", "n1", "n2", "n2", "n3"]


def test_a_pods_group_is_read_from_every_manifest_shape():
    # spec.schedulingGroup.podGroupName, a non-empty string, or no group; plain dicts
    # take pod_group_name's fast path, other mappings the general one: same answers.
    from types import MappingProxyType

    from kubepreempt.api.objects import Pod
    shapes = [None, {}, {"spec": None}, {"spec": {}}, {"spec": {"schedulingGroup": None}},
              {"spec": {"schedulingGroup": {}}},
              {"spec": {"schedulingGroup": {"podGroupName": ""}}},
              {"spec": {"schedulingGroup": {"podGroupName": 3}}},
              {"spec": {"schedulingGroup": "pg"}},
              {"spec": {"schedulingGroup": {"podGroupName": "pg"}}}]
    expected = [None] * 9 + ["pg"]
    for raw, want in zip(shapes, expected, strict=True):
        assert pod_group_name(Pod(NS, "p", raw=raw or {})) == want, raw
        if raw:
            proxied = MappingProxyType({k: MappingProxyType(v) if isinstance(v, dict) else v
                                        for k, v in raw.items()})
            assert pod_group_name(Pod(NS, "p", raw=proxied)) == want, raw
