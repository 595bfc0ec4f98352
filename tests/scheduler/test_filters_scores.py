"""Filters and scores of the default profile, with upstream's reasons and arithmetic."""

import pytest
from builders import cluster_of, node, pod

from kubepreempt.decide import schedule

GI = "Gi"


def _affinity(*terms: dict) -> dict:
    return {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": list(terms)}}}}


def _fits(nodes: list[dict], spec_extra: dict | None = None, **kw) -> list[str]:
    """Names of nodes where the pod passes all filters (via --explain statuses)."""
    c = cluster_of(*nodes, pod("p", "100m", spec_extra=spec_extra, **kw))
    d = schedule(c, "default/p", preemption=False)
    return sorted(n.name for n in c.nodes if n.name not in d.statuses)


@pytest.mark.parametrize(("expr", "expected"), [
    ({"key": "gen", "operator": "Gt", "values": ["3"]}, ["n5"]),
    ({"key": "gen", "operator": "Lt", "values": ["5"]}, ["n3"]),
    ({"key": "gen", "operator": "In", "values": ["3", "5"]}, ["n3", "n5"]),
    ({"key": "gen", "operator": "NotIn", "values": ["3"]}, ["n5", "nx"]),
    ({"key": "gen", "operator": "Exists"}, ["n3", "n5"]),
    ({"key": "gen", "operator": "DoesNotExist"}, ["nx"]),
])
def test_node_affinity_operators(expr: dict, expected: list[str]) -> None:
    nodes = [node("n3", labels={"gen": "3"}), node("n5", labels={"gen": "5"}), node("nx")]
    assert _fits(nodes, _affinity({"matchExpressions": [expr]})) == expected


def test_node_affinity_terms_are_ored_and_match_fields() -> None:
    nodes = [node("a", labels={"z": "1"}), node("b"), node("c")]
    terms = _affinity({"matchExpressions": [{"key": "z", "operator": "In", "values": ["1"]}]},
                      {"matchFields": [{"key": "metadata.name", "operator": "In",
                                        "values": ["c"]}]})
    assert _fits(nodes, terms) == ["a", "c"]


def test_match_fields_not_in_does_not_narrow_prefilter() -> None:
    # NodeAffinity PreFilter narrows to node names only for ``metadata.name In``
    # (nodeaffinity PreFilter / GetRequiredNodeNames); NotIn is left to Filter.
    terms = _affinity({"matchFields": [{"key": "metadata.name", "operator": "NotIn",
                                        "values": ["a"]}]})
    assert _fits([node("a"), node("b")], terms) == ["b"]


def test_node_affinity_verdicts_are_per_pod_on_a_shared_cluster() -> None:
    # Two pods with the same (empty) nodeSelector but different required node affinity,
    # decided on one cluster object (whose node-derived data is memoised): each pod's
    # own terms decide.
    def zone(value: str) -> dict:
        return _affinity({"matchExpressions": [{"key": "z", "operator": "In",
                                                "values": [value]}]})
    c = cluster_of(node("a", labels={"z": "1"}), node("b", labels={"z": "2"}),
                   pod("one", "1", spec_extra=zone("1")), pod("two", "1", spec_extra=zone("2")),
                   pod("sel", "1", spec_extra={"nodeSelector": {"z": "2"}}))
    assert [schedule(c, f"default/{p}").node for p in ("one", "two", "sel")] == ["a", "b", "b"]


def test_prefer_no_schedule_verdicts_are_per_pod_on_a_shared_cluster() -> None:
    # TaintToleration Score counts the PreferNoSchedule taints the pod does not tolerate
    # (countIntolerableTaintsPreferNoSchedule) and reverses the normalisation: each pod
    # prefers the node whose taint it tolerates, also when decided on one cluster object.
    def tolerating(key: str) -> dict:
        return {"tolerations": [{"key": key, "operator": "Exists",
                                 "effect": "PreferNoSchedule"}]}
    c = cluster_of(node("a", taints=[{"key": "k", "value": "v", "effect": "PreferNoSchedule"}]),
                   node("b", taints=[{"key": "j", "value": "v", "effect": "PreferNoSchedule"}]),
                   pod("one", "1", spec_extra=tolerating("k")),
                   pod("two", "1", spec_extra=tolerating("j")))
    assert [schedule(c, f"default/{p}").node for p in ("one", "two")] == ["a", "b"]


def test_empty_node_selector_term_matches_nothing() -> None:
    assert _fits([node("a")], _affinity({})) == []


def test_node_selector_and_reason() -> None:
    c = cluster_of(node("a", labels={"disk": "ssd"}), node("b"),
                   pod("p", "1", spec_extra={"nodeSelector": {"disk": "ssd"}}))
    d = schedule(c, "default/p")
    assert d.node == "a"
    assert d.statuses["b"].reasons == ("node(s) didn't match Pod's node affinity/selector",)
    assert d.statuses["b"].unresolvable


def test_taints_noschedule_noexecute_filter_prefer_does_not() -> None:
    nodes = [node("ns", taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}]),
             node("ne", taints=[{"key": "k", "value": "v", "effect": "NoExecute"}]),
             node("pr", taints=[{"key": "k", "value": "v", "effect": "PreferNoSchedule"}])]
    assert _fits(nodes) == ["pr"]
    tol = {"tolerations": [{"key": "k", "operator": "Equal", "value": "v"}]}
    assert _fits(nodes, tol) == ["ne", "ns", "pr"]
    wrong_value = {"tolerations": [{"key": "k", "operator": "Equal", "value": "w"}]}
    assert _fits(nodes, wrong_value) == ["pr"]
    everything = {"tolerations": [{"operator": "Exists"}]}
    assert _fits(nodes, everything) == ["ne", "ns", "pr"]
    only_noexec = {"tolerations": [{"key": "k", "operator": "Exists", "effect": "NoExecute"}]}
    assert _fits(nodes, only_noexec) == ["ne", "pr"]


def test_unschedulable_node_and_its_toleration_exception() -> None:
    nodes = [node("cordoned", unschedulable=True), node("ok", cpu="1")]
    assert _fits(nodes) == ["ok"]
    tol = {"tolerations": [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists",
                            "effect": "NoSchedule"}]}
    assert _fits(nodes, tol) == ["cordoned", "ok"]


def test_resource_reasons_in_upstream_order() -> None:
    c = cluster_of(node("a", cpu="1", memory="1Gi", pods="1", **{"nvidia.com/gpu": "1"}),
                   pod("x", node_name="a"),
                   pod("p", "2", "2Gi", **{"nvidia.com/gpu": "2"}))
    d = schedule(c, "default/p", preemption=False)
    assert d.statuses["a"].reasons == ("Too many pods", "Insufficient cpu",
                                       "Insufficient memory", "Insufficient nvidia.com/gpu")


def test_extended_resource_fits_only_where_present() -> None:
    nodes = [node("gpu", **{"nvidia.com/gpu": "2"}), node("cpu-only")]
    c = cluster_of(*nodes, pod("p", "1", **{"nvidia.com/gpu": "1"}))
    d = schedule(c, "default/p")
    assert d.node == "gpu"
    assert d.statuses["cpu-only"].reasons == ("Insufficient nvidia.com/gpu",)


def test_host_port_conflict() -> None:
    ports = {"containers": [{"name": "c", "ports": [{"containerPort": 80, "hostPort": 8080}]}]}
    c = cluster_of(node("a"), node("b"), pod("x", node_name="a", spec_extra=ports),
                   pod("p", spec_extra=ports))
    d = schedule(c, "default/p")
    assert d.node == "b"
    assert d.statuses["a"].reasons == (
        "node(s) didn't have free ports for the requested pod ports",)


def test_least_allocated_and_balanced_scores() -> None:
    # Node a: 4 cpu / 10Gi with 1 cpu / 2Gi requested; pod asks 1 cpu / 2Gi.
    # LeastAllocated: cpu (4000-2000)*100/4000 = 50, memory (10-4)*100/10 = 60 -> 55.
    # Balance with the pod: fractions 0.5 and 0.4 -> std 0.05 -> 95; without it .25/.2 ->
    # 97; current upstream scores the change: (150 + 95 - 97) // 2 = 74.
    # Node b: empty 4 cpu / 10Gi: cpu 75, memory 80 -> 77; balance 97 with the pod, 100
    # without -> (150 + 97 - 100) // 2 = 73.
    c = cluster_of(node("a", cpu="4", memory="10Gi"), node("b", cpu="4", memory="10Gi"),
                   pod("x", "1", "2Gi", node_name="a"), pod("p", "1", "2Gi"))
    d = schedule(c, "default/p")
    assert d.scores["a"]["NodeResourcesFit"] == 55
    assert d.scores["a"]["NodeResourcesBalancedAllocation"] == 74
    assert d.scores["b"]["NodeResourcesFit"] == 77
    assert d.scores["b"]["NodeResourcesBalancedAllocation"] == 73
    assert d.node == "b"


def test_least_allocated_uses_defaults_for_missing_requests() -> None:
    # A pod without requests counts as 100m cpu and 200Mi memory when scoring.
    c = cluster_of(node("a", cpu="1", memory="1000Mi"), node("b", cpu="1", memory="1000Mi"),
                   pod("p"))
    d = schedule(c, "default/p")
    # cpu (1000-100)*100/1000 = 90; memory (1000-200)*100/1000 = 80 -> 85
    assert d.scores["a"]["NodeResourcesFit"] == 85
    assert "NodeResourcesBalancedAllocation" not in d.scores["a"]  # best-effort: skipped


def test_prefer_no_schedule_taints_score_reverse_normalised() -> None:
    prefer = [{"key": "k", "value": "v", "effect": "PreferNoSchedule"}]
    c = cluster_of(node("a", taints=prefer), node("b"), pod("p", "1"))
    d = schedule(c, "default/p")
    assert d.scores["a"]["TaintToleration"] == 0  # weight 3 x (100 - 100*1/1)
    assert d.scores["b"]["TaintToleration"] == 300
    assert d.node == "b"


def test_preferred_node_affinity_score() -> None:
    pref = {"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 20, "preference": {"matchExpressions": [
            {"key": "z", "operator": "In", "values": ["1"]}]}},
        {"weight": 80, "preference": {"matchExpressions": [
            {"key": "fast", "operator": "Exists"}]}}]}}}
    c = cluster_of(node("a", labels={"z": "1"}), node("b", labels={"fast": "y"}),
                   node("c", labels={"z": "1", "fast": "y"}), pod("p", "1", spec_extra=pref))
    d = schedule(c, "default/p")
    # raw 20, 80, 100 -> normalised 20, 80, 100 -> weight 2
    assert [d.scores[n]["NodeAffinity"] for n in "abc"] == [40, 160, 200]
    assert d.node == "c"


def test_equal_scores_tie_to_first_node_by_name() -> None:
    c = cluster_of(node("zeta"), node("alpha"), node("mid"), pod("p", "1"))
    assert schedule(c, "default/p").node == "alpha"


def _daemonset_affinity(*names: str) -> dict:
    return _affinity({"matchFields": [{"key": "metadata.name", "operator": "In",
                                       "values": list(names)}]})


def test_node_name_prefilter_evaluates_only_named_nodes() -> None:
    # DaemonSet-style pods name their node in matchFields; upstream's NodeAffinity
    # PreFilter then evaluates only that node and reports the others as absent.
    taint = [{"key": "k", "value": "v", "effect": "NoSchedule"}]
    c = cluster_of(node("a", cpu="1"), node("b", taints=taint), node("c"),
                   pod("x", "1", node_name="a", priority=5),
                   pod("p", "1", priority=1, spec_extra=_daemonset_affinity("a")))
    d = schedule(c, "default/p")
    assert d.result == "unschedulable"
    assert d.message == (
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) "
        "[NodeAffinity]. no new claims to deallocate, preemption: 0/3 nodes are available: "
        "1 No preemption victims found for incoming pod, "
        "2 Preemption is not helpful for scheduling.")


def test_node_name_prefilter_with_conflicting_terms() -> None:
    both = _affinity({"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["a"]},
        {"key": "metadata.name", "operator": "In", "values": ["b"]}]})
    c = cluster_of(node("a"), node("b"), pod("p", "1", spec_extra=both))
    d = schedule(c, "default/p", preemption=False)
    # DynamicResources' PreFilter never ran, so its PostFilter errs with "not found".
    assert d.message == "0/2 nodes are available: pod affinity terms conflict. not found"


def test_daemonset_pod_preempts_on_its_node() -> None:
    c = cluster_of(node("a", cpu="1"), node("b", cpu="4"),
                   pod("x", "1", node_name="a", priority=0),
                   pod("p", "1", priority=10, spec_extra=_daemonset_affinity("a")))
    d = schedule(c, "default/p")
    assert (d.result, d.node, d.victims) == ("preempt", "a", ["default/x"])


def test_statuses_by_node_name_are_the_cycles_own() -> None:
    # Read after the cluster moved on (a pod bound, a node added), a decision's statuses
    # are still those of its cycle, keyed by node name, and compare as a dict. 2 cpu is
    # more than a's and c's whole allocatable: UnschedulableAndUnresolvable (fitsRequest).
    from kubepreempt.api.errors import Source
    from kubepreempt.api.objects import parse_node
    from kubepreempt.scheduler.framework import unresolvable

    c = cluster_of(node("a", cpu="1"), node("b", cpu="4"), node("c", cpu="1"),
                   pod("p", "2"), pod("q", "3"))
    d = schedule(c, "default/p", preemption=False)
    c.bind(c.pending["default/q"], "b")
    c.add_node(parse_node(node("aa", cpu="1"), Source()))
    short = unresolvable("NodeResourcesFit", "Insufficient cpu")
    assert d.statuses == {"a": short, "c": short}
    assert sorted(d.statuses) == ["a", "c"] and "b" not in d.statuses
    assert d.to_json(explain=True)["nodes"]["c"]["reasons"] == ["Insufficient cpu"]
