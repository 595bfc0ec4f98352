"""Eviction ranking: upstream helpers_test.go orderings, the no-stats rule, PodMetrics."""

from __future__ import annotations

import pytest
from kubelet_fixtures import make_pod

from kubepreempt.api.errors import InputError, Source
from kubepreempt.kubelet.eviction import rank_for_eviction
from kubepreempt.kubelet.metrics import parse_one

MI = 1 << 20
LOW, DEFAULT, HIGH = -1, 0, 1  # upstream lowPriority, defaultPriority, highPriority


def mem(name, priority, request=None, limit=None):
    return make_pod(name, {"memory": request} if request else None,
                    {"memory": limit} if limit else None, priority=priority)


def disk(name, priority, request=None, limit=None):
    return make_pod(name, {"ephemeral-storage": request} if request else None,
                    {"ephemeral-storage": limit} if limit else None, priority=priority)


def order(pods, resource, usage_mi):
    usage = {f"default/{n}": {resource: u * MI} for n, u in usage_mi.items()}
    return [k.split("/")[1] for k in rank_for_eviction(pods, resource, usage).order]


BY_RESOURCE = pytest.mark.parametrize(("build", "resource"), [
    (mem, "memory"), (disk, "ephemeral-storage")], ids=["memory", "disk"])


@BY_RESOURCE
def test_exceeds_request(build, resource):
    below = build("below-requests", -1, "200Mi")
    exceeds = build("exceeds-requests", 1, "100Mi")
    # exceeding ranks first even though its priority is higher
    assert order([below, exceeds], resource, {"below-requests": 199,
                                              "exceeds-requests": 101}) == [
        "exceeds-requests", "below-requests"]


def test_ordered_by_priority_without_stats():
    low = make_pod("low-priority", priority=-134)
    medium = make_pod("medium-priority", {"memory": "100Mi"}, {"memory": "200Mi"}, priority=1)
    high = make_pod("high-priority", {"memory": "200Mi"}, {"memory": "200Mi"}, priority=12534)
    assert order([high, medium, low], "memory", {}) == [
        "low-priority", "medium-priority", "high-priority"]


def test_ordered_by_memory():
    pods = [mem("best-effort-high", DEFAULT), mem("best-effort-low", DEFAULT),
            mem("burstable-high", DEFAULT, "100Mi", "1Gi"),
            mem("burstable-low", DEFAULT, "100Mi", "1Gi"),
            mem("guaranteed-high", DEFAULT, "1Gi", "1Gi"),
            mem("guaranteed-low", DEFAULT, "1Gi", "1Gi")]
    usage = {"best-effort-high": 500, "best-effort-low": 300, "burstable-high": 800,
             "burstable-low": 300, "guaranteed-high": 800, "guaranteed-low": 200}
    assert order(pods, "memory", usage) == [
        "burstable-high", "best-effort-high", "best-effort-low", "burstable-low",
        "guaranteed-high", "guaranteed-low"]


@BY_RESOURCE
def test_ordered_by_priority(build, resource):
    names = ["above-requests-low-priority-high-usage", "above-requests-low-priority-low-usage",
             "above-requests-high-priority-high-usage",
             "above-requests-high-priority-low-usage",
             "below-requests-low-priority-high-usage", "below-requests-low-priority-low-usage",
             "below-requests-high-priority-high-usage",
             "below-requests-high-priority-low-usage"]
    reqs = [None, None, "100Mi", "100Mi", "1Gi", "1Gi", "1Gi", "1Gi"]
    prios = [LOW, LOW, HIGH, HIGH, LOW, LOW, HIGH, HIGH]
    usage = [500, 50, 600, 150, 800, 200, 800, 200]
    pods = [build(n, p, r) for n, p, r in zip(names, prios, reqs, strict=True)]
    got = order(list(reversed(pods)), resource, dict(zip(names, usage, strict=True)))
    assert got == names


def test_ordered_by_disk():
    names = ["best-effort-high", "best-effort-low", "burstable-high", "burstable-low",
             "guaranteed-high", "guaranteed-low"]
    reqs = [None, None, "100Mi", "100Mi", "400Mi", "400Mi"]
    usage = [300, 100, 350, 110, 375, 120]
    pods = [disk(n, DEFAULT, r) for n, r in zip(names, reqs, strict=True)]
    assert order(pods, "ephemeral-storage", dict(zip(names, usage, strict=True))) == [
        "best-effort-high", "burstable-high", "best-effort-low", "burstable-low",
        "guaranteed-high", "guaranteed-low"]


def test_pods_without_stats_rank_first_by_priority():
    pods = [mem("measured-low", -10, "1Mi"), mem("blind-high", 100), mem("blind-low", 5)]
    rank = rank_for_eviction(pods, "memory", {"default/measured-low": {"memory": 500 * MI}})
    assert rank.order == ["default/blind-low", "default/blind-high", "default/measured-low"]
    assert rank.no_metrics == ["default/blind-low", "default/blind-high"]


def test_equal_pods_keep_input_order_and_critical_is_skipped():
    a, b = mem("a", 0), mem("b", 0)
    crit = make_pod("crit", priority=2_000_000_000)
    usage = {"default/a": {"memory": MI}, "default/b": {"memory": MI},
             "default/crit": {"memory": 5 * MI}}
    rank = rank_for_eviction([crit, b, a], "memory", usage)
    assert rank.order == ["default/b", "default/a", "default/crit"]
    rank2 = rank_for_eviction([crit], "memory", usage)
    assert rank2.next is None
    crit_first = rank_for_eviction([crit, a], "memory", {"default/crit": {"memory": MI}})
    assert crit_first.order[0] == "default/a"  # a has no stats
    assert rank_for_eviction([crit], "memory", {}).to_json()["critical"] == ["default/crit"]


def test_unknown_resource():
    with pytest.raises(ValueError, match="resource must be"):
        rank_for_eviction([], "cpu", {})


def test_pod_metrics_sums_containers_and_rounds_up():
    body = {"apiVersion": "metrics.k8s.io/v1beta1", "kind": "PodMetrics",
            "metadata": {"name": "p", "namespace": "ns"},
            "containers": [{"name": "a", "usage": {"cpu": "100n", "memory": "12345Ki"}},
                           {"name": "b", "usage": {"cpu": "250m", "memory": "1Mi"}}]}
    pu = parse_one(body, Source("m.yaml", 0))
    assert pu.key == "ns/p"
    assert pu.usage == {"cpu": 1 + 250, "memory": 12345 * 1024 + MI}


@pytest.mark.parametrize(("body", "fragment"), [
    ({"metadata": {"name": "p"}, "containers": [{"usage": {"memory": "lots"}}]},
     "not a valid Kubernetes quantity"),
    ({"metadata": {"name": "p"}, "containers": {"a": 1}}, "containers must be a list"),
    ({"metadata": {"name": "p"}, "containers": ["x"]}, "containers[0] must be a mapping"),
    ({"metadata": {}}, "no metadata.name"),
    ({"apiVersion": "v1", "metadata": {"name": "p"}}, "is not metrics.k8s.io/v1beta1"),
])
def test_malformed_pod_metrics(body, fragment):
    with pytest.raises(InputError) as exc:
        parse_one(body, Source("m.yaml", 3))
    assert fragment in str(exc.value)
    assert str(exc.value).startswith("m.yaml, document 4: PodMetrics")
    assert "\n" not in str(exc.value)
