"""Flavor assignment (v0.7.0 flavorassigner): order, labels, taints, fungibility, pods."""

from __future__ import annotations

from builders.kueue import cq, flavor, pod_set, run, wl

TWO = [("f1", {"cpu": "2"}), ("f2", {"cpu": "4"})]


def test_flavors_are_tried_in_order() -> None:
    objs = [flavor("f1"), flavor("f2"), cq("q", TWO), wl("in", {"cpu": "3"}, queue="q")]
    d = run(objs, "in")
    assert (d.result, d.flavors) == ("admit", {"main": {"cpu": "f2"}})  # 3 > 2 in f1
    objs[-1] = wl("in", {"cpu": "1"}, queue="q")
    assert run(objs, "in").flavors == {"main": {"cpu": "f1"}}


def test_untolerated_taint_skips_flavor() -> None:
    taint = [{"key": "spot", "value": "true", "effect": "NoSchedule"}]
    objs = [flavor("f1", taints=taint), flavor("f2"), cq("q", TWO),
            wl("in", {"cpu": "1"}, queue="q")]
    assert run(objs, "in").flavors == {"main": {"cpu": "f2"}}
    tol = [{"key": "spot", "operator": "Exists", "effect": "NoSchedule"}]
    objs[-1] = wl("in", pod_sets=[pod_set("main", 1, {"cpu": "1"}, tolerations=tol)],
                  queue="q")
    assert run(objs, "in").flavors == {"main": {"cpu": "f1"}}


def test_node_selector_and_affinity_against_node_labels() -> None:
    objs = [flavor("f1", {"zone": "a"}), flavor("f2", {"zone": "b"}), cq("q", TWO)]
    sel = wl("in", pod_sets=[pod_set("main", 1, {"cpu": "1"},
                                     nodeSelector={"zone": "b", "other": "x"})], queue="q")
    # "other" is not a label key of any flavor, so it is ignored.
    assert run([*objs, sel], "in").flavors == {"main": {"cpu": "f2"}}
    aff = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": "zone", "operator": "NotIn", "values": ["a"]}]}]}}}
    w = wl("in", pod_sets=[pod_set("main", 1, {"cpu": "1"}, affinity=aff)], queue="q")
    assert run([*objs, w], "in").flavors == {"main": {"cpu": "f2"}}
    none = wl("in", pod_sets=[pod_set("main", 1, {"cpu": "1"}, nodeSelector={"zone": "c"})],
              queue="q")
    d = run([*objs, none], "in")
    assert d.result == "pending"
    assert "flavor f1 doesn't match node affinity" in d.message


def test_when_can_preempt_defaults_to_try_next_flavor() -> None:
    # f1 is full (needs preemption), f2 fits: the default moves on to f2.
    base = [flavor("f1"), flavor("f2"), wl("low", {"cpu": "2"}, -1, admitted="q",
                                            flavors={"cpu": "f1"}),
            wl("in", {"cpu": "2"}, 0, queue="q")]
    d = run([*base, cq("q", TWO, within="LowerPriority")], "in")
    assert (d.result, d.flavors) == ("admit", {"main": {"cpu": "f2"}})
    fung = {"whenCanPreempt": "Preempt"}
    d = run([*base, cq("q", TWO, within="LowerPriority", fungibility=fung)], "in")
    assert (d.result, d.flavors, d.victims) == ("preempt", {"main": {"cpu": "f1"}},
                                                ["default/low"])


def test_when_can_borrow() -> None:
    def objs(fung: dict[str, str] | None) -> list[dict]:
        return [flavor("f1"), flavor("f2"),
                cq("q", [("f1", {"cpu": "1"}), ("f2", {"cpu": "4"})], cohort="c",
                   fungibility=fung),
                cq("lender", [("f1", {"cpu": "4"})], cohort="c"),
                wl("in", {"cpu": "2"}, queue="q")]
    d = run(objs(None), "in")  # default Borrow: f1 with borrowing
    assert (d.flavors, d.borrowing) == ({"main": {"cpu": "f1"}}, True)
    d = run(objs({"whenCanBorrow": "TryNextFlavor"}), "in")
    assert (d.flavors, d.borrowing) == ({"main": {"cpu": "f2"}}, False)


def test_pods_resource_counts_pods() -> None:
    q = cq("q", [("f1", {"cpu": "10", "pods": "3"})])
    objs = [flavor("f1"), q, wl("in", pod_sets=[pod_set("main", 4, {"cpu": "1"})], queue="q")]
    d = run(objs, "in")
    assert d.result == "pending"
    assert "insufficient quota for pods in flavor f1 in ClusterQueue" in d.message
    objs[-1] = wl("in", pod_sets=[pod_set("main", 3, {"cpu": "1"})], queue="q")
    d = run(objs, "in")
    assert d.result == "admit" and d.requests == {"f1": {"cpu": 3000, "pods": 3}}


def test_resource_not_covered_and_missing_queue() -> None:
    objs = [flavor("f1"), cq("q", [("f1", {"cpu": "2"})]),
            wl("in", {"cpu": "1", "memory": "1Gi"}, queue="q")]
    d = run(objs, "in")
    assert d.result == "pending" and "resource memory unavailable in ClusterQueue" in d.message
    objs[-1] = wl("in", {"cpu": "1"}, queue="nope")
    assert run(objs, "in").message == "LocalQueue nope doesn't exist"


def test_missing_flavor_makes_queue_inactive() -> None:
    objs = [cq("q", [("ghost", {"cpu": "2"})]), wl("in", {"cpu": "1"}, queue="q")]
    d = run(objs, "in")
    assert d.result == "pending" and "inactive" in d.message


def test_count_times_per_pod_requests_and_limits_as_requests() -> None:
    ps = {"name": "main", "count": 3, "template": {"spec": {
        "initContainers": [{"name": "i", "resources": {"requests": {"cpu": "5"}}}],
        "containers": [{"name": "a", "resources": {"limits": {"cpu": "1"}}},
                       {"name": "b", "resources": {"requests": {"cpu": "500m"}}}]}}}
    objs = [flavor("f1"), cq("q", [("f1", {"cpu": "100"})]), wl("in", pod_sets=[ps], queue="q")]
    # per pod max(1 + 0.5, 5) = 5 cpus; x3 = 15.
    assert run(objs, "in").requests == {"f1": {"cpu": 15000}}
