"""advise's search rules at their boundaries. Each answer is the scheduler's own decision
(kube-scheduler's preemption and filters, re-run by ``schedule`` / ``what_if``): advise
only searches over those decisions, so the expected values come from the upstream rules
that decide them, named in each test."""

from __future__ import annotations

import pytest
from builders import cluster_of, docs_of, node, pod, priority_class

from kubepreempt.decide import schedule
from kubepreempt.whatif.advise import advise, filter_report, fresh, parse_shape
from kubepreempt.whatif.place import expand_documents, what_if

NOW = 1e9


def base(*extra: dict) -> tuple[dict, ...]:
    """n1: 3 CPUs, 1.5 CPU free: batch-1 (priority 100, 500m) and sys-1 (2000, 1 CPU)."""
    return (node("n1", cpu="3"),
            pod("batch-1", "500m", ns="jobs", node_name="n1", priority=100,
                start="2024-01-01T00:00:00Z"),
            pod("sys-1", "1", ns="kube-system", node_name="n1", priority=2000), *extra)


def test_priority_class_exactly_at_the_lowest_value_is_chosen() -> None:
    """A 2-CPU pod needs batch-1 (priority 100) gone. Upstream preemption only takes
    victims of strictly lower priority (``selectVictimsOnNode`` in
    pkg/scheduler/framework/plugins/defaultpreemption: ``PodPriority(p) < podPriority``),
    so the lowest value is 101. Class ``exact`` has value 101: it is the lowest class at
    or above that value, and placing the pod at it preempts batch-1; ``mid`` (500) is not
    the answer.

    Kills the mutation ``pc.value >= value`` -> ``pc.value > value`` in
    ``lowest_class``."""
    cluster = cluster_of(priority_class("low", 100), priority_class("exact", 101),
                         priority_class("mid", 500),
                         *base(pod("big", "2", ns="shop", priority=50)))
    big = cluster.find_pod("shop/big")
    a = advise(cluster, [("Pod/shop/big", [big], False)], subject="shop/big", now=NOW)
    assert a.priority["lowestValue"] == 101
    assert a.priority["lowestClass"]["name"] == "exact"
    assert a.priority["lowestClass"]["victims"] == ["jobs/batch-1"]
    assert schedule(cluster, fresh(big, priority=101), now=NOW).victims == ["jobs/batch-1"]
    assert schedule(cluster, fresh(big, priority=100), now=NOW).result == "unschedulable"


def _deployment(replicas: int) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"replicas": replicas,
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"priority": 50, "containers": [
                                      {"name": "c", "resources": {
                                          "requests": {"cpu": "2"}}}]}}}}


@pytest.mark.parametrize("needed", [3, 5, 6, 7])
def test_node_count_search_beyond_the_first_doublings(needed: int) -> None:
    """``needed`` 2-CPU replicas, none fitting n1 (1.5 CPU free, nothing below priority 50
    to preempt), and a 2-CPU node shape: each added node takes exactly one replica
    (NodeResourcesFit), so exactly ``needed`` nodes. The search gallops 1, 2, 4, 8 and
    bisects between the last failing and the first fitting count: 3 (between 2 and 4),
    5 and 6 (the lower half of 4..8) and 7 (the top: 6 fails, 7 fits). Rechecked with
    ``schedule -f`` (``what_if``) on ``needed - 1`` and ``needed`` added nodes.

    Kills mutations of the bisection in ``nodes_needed`` (``lo = mid`` -> ``lo = mid + 1``,
    ``hi - lo > 1`` -> ``hi - lo > 2``, ``hi, best = mid, got`` -> ``hi = mid + 1``)."""
    cluster = cluster_of(*base())
    dep = _deployment(needed)
    workloads = [(k, p, o) for k, p, o, _ in expand_documents(cluster, docs_of(dep))]
    a = advise(cluster, workloads, subject="web", node_template=parse_shape("cpu=2"),
               now=NOW)
    assert a.nodes["needed"] == needed
    assert len(a.nodes["placements"]) == needed  # one replica on each added node
    for k in (needed - 1, needed):
        trial = cluster_of(*base(*(node(f"x{i}", cpu="2") for i in range(k))))
        got = what_if(trial, docs_of(dep), now=NOW, preemption=False)
        assert got.summary()["scheduled"] == k


def test_filter_suggestions_order_smallest_change_then_most_nodes() -> None:
    """A 1-CPU pod with nodeSelector zone=z1 and no tolerations. Upstream's filter order
    (TaintToleration before NodeAffinity before NodeResourcesFit, the default
    ``MultiPoint`` plugin order) decides which plugin rejects each node:

    * TaintToleration, 7 nodes: ``a-b`` (taint b), ``b-c`` (c), ``c-d`` (d), ``d1``..``d3``
      (a), ``e-ac`` (a and x). Single-taint changes come first (size 1 before the size-2
      ``a, x``), the most common first: tolerating ``a`` admits 3 nodes, more than any
      other one-toleration change, and wins although ``a, x`` would admit 4.
    * NodeAffinity, 2 nodes without the zone label: dropping the selector admits both.
    * NodeResourcesFit, 2 nodes of 500m (first by name): no suggestion for it.

    Plugins are listed by rejected nodes, then by name (NodeAffinity before
    NodeResourcesFit at 2 each, although a NodeResourcesFit node comes first).

    Kills the mutations of ``filter_report``'s ``(-kv[1], kv[0])`` plugin order, its
    ``(s.size, -admitted)`` preference, and ``_suggestions``' ``(len, -count)`` order of
    taint sets before the cut to three."""
    def tainted(name: str, *keys: str) -> dict:
        return node(name, labels={"zone": "z1"},
                    taints=[{"key": k, "effect": "NoSchedule"} for k in keys])
    cluster = cluster_of(
        node("0-small1", cpu="500m", labels={"zone": "z1"}),
        node("0-small2", cpu="500m", labels={"zone": "z1"}),
        tainted("a-b", "b"), tainted("b-c", "c"), tainted("c-d", "d"),
        tainted("d1", "a"), tainted("d2", "a"), tainted("d3", "a"), tainted("e-ac", "a", "x"),
        node("f1"), node("f2"),
        pod("p", "1", ns="shop", spec_extra={"nodeSelector": {"zone": "z1"}}))
    report = filter_report(cluster, cluster.find_pod("shop/p"), NOW)
    assert [(f["plugin"], f["nodes"]) for f in report] == [
        ("TaintToleration", 7), ("NodeAffinity", 2), ("NodeResourcesFit", 2)]
    taint, affinity, fit = report
    assert (taint["suggestion"]["change"], taint["suggestion"]["admits"]) == (
        "tolerate a:NoSchedule", 3)
    assert taint["suggestion"]["node"] in ("d1", "d2", "d3")
    assert (affinity["suggestion"]["change"], affinity["suggestion"]["admits"]) == (
        "drop nodeSelector zone", 2)
    assert "suggestion" not in fit


def test_a_change_that_admits_no_node_is_not_suggested() -> None:
    """The only node misses the pod's nodeSelector key ``disk`` *and* its required node
    affinity (``zone In [z1]``). Upstream NodeAffinity (pkg/scheduler/framework/plugins/
    nodeaffinity, ``GetRequiredNodeAffinity(pod).Match``) needs both, so dropping either
    one alone still leaves the node rejected by NodeAffinity: neither change admits a
    node, and no suggestion is reported. With a second node that has ``disk`` but not the
    zone, dropping the required affinity admits it.

    Kills the mutation ``admitted <= 0`` -> ``admitted < 0`` in ``filter_report``."""
    required = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": "zone", "operator": "In", "values": ["z1"]}]}]}}}
    p = pod("p", "1", ns="shop", spec_extra={"nodeSelector": {"disk": "ssd"},
                                              "affinity": required})
    cluster = cluster_of(node("n1", labels={"zone": "z2"}), p)
    (entry,) = filter_report(cluster, cluster.find_pod("shop/p"), NOW)
    assert (entry["plugin"], entry["nodes"]) == ("NodeAffinity", 1)
    assert "suggestion" not in entry
    cluster = cluster_of(node("n1", labels={"zone": "z2"}),
                         node("n2", labels={"zone": "z2", "disk": "ssd"}), p)
    (entry,) = filter_report(cluster, cluster.find_pod("shop/p"), NOW)
    assert entry["suggestion"]["change"] == "drop the required node affinity"
    assert (entry["suggestion"]["admits"], entry["suggestion"]["node"]) == (1, "n2")


def test_of_two_equally_small_changes_the_one_admitting_more_nodes_wins() -> None:
    """nodeSelector ``disk=ssd`` and required affinity ``zone In [z1]``: n1 (z1, no disk)
    fails only the selector, n2 and n3 (ssd, z2) only the affinity (NodeAffinity needs
    both: ``GetRequiredNodeAffinity(pod).Match``). Dropping the selector key admits n1;
    dropping the required affinity admits n2 and n3. Both are one-item changes, so the
    one admitting more nodes is suggested, although the selector one is tried first.

    Kills the mutation of ``filter_report``'s preference ``(s.size, -admitted) <
    (size, -admits)`` to ``s.size < size``."""
    required = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": "zone", "operator": "In", "values": ["z1"]}]}]}}}
    cluster = cluster_of(
        node("n1", labels={"zone": "z1"}),
        node("n2", labels={"zone": "z2", "disk": "ssd"}),
        node("n3", labels={"zone": "z2", "disk": "ssd"}),
        pod("p", "1", ns="shop", spec_extra={"nodeSelector": {"disk": "ssd"},
                                              "affinity": required}))
    (entry,) = filter_report(cluster, cluster.find_pod("shop/p"), NOW)
    assert (entry["plugin"], entry["nodes"]) == ("NodeAffinity", 3)
    assert (entry["suggestion"]["change"], entry["suggestion"]["admits"]) == (
        "drop the required node affinity", 2)
