"""Pod requests, QoS classes and priority resolution by upstream's rules."""

import pytest
from builders import cluster_of, node, pod, priority_class

from kubepreempt.api.errors import InputError, Source
from kubepreempt.api.objects import parse_pod
from kubepreempt.api.priority import PriorityResolver

GI = 1 << 30
MI = 1 << 20


def _pod(spec: dict, meta: dict | None = None):
    raw = {"kind": "Pod", "metadata": {"name": "p", "namespace": "ns", **(meta or {})},
           "spec": spec}
    return parse_pod(raw, Source("t.yaml"), PriorityResolver().resolve)


def _c(name: str, requests=None, limits=None, restart=None) -> dict:
    c = {"name": name, "resources": {}}
    if requests:
        c["resources"]["requests"] = requests
    if limits:
        c["resources"]["limits"] = limits
    if restart:
        c["restartPolicy"] = restart
    return c


def test_requests_are_max_of_sum_and_largest_init_container_plus_overhead() -> None:
    p = _pod({
        "containers": [_c("a", {"cpu": "500m", "memory": "1Gi"}), _c("b", {"cpu": "250m"})],
        "initContainers": [_c("i1", {"cpu": "1", "memory": "512Mi"}),
                           _c("i2", {"cpu": "100m", "memory": "2Gi"})],
        "overhead": {"cpu": "50m", "memory": "10Mi"},
    })
    # containers sum: cpu 750m, mem 1Gi; init max: cpu 1000m, mem 2Gi -> per-resource max
    assert p.requests["cpu"] == 1000 + 50
    assert p.requests["memory"] == 2 * GI + 10 * MI


def test_sidecar_init_containers_add_to_steady_state_and_to_later_inits() -> None:
    p = _pod({
        "containers": [_c("app", {"cpu": "1"})],
        "initContainers": [_c("sidecar", {"cpu": "500m"}, restart="Always"),
                           _c("init", {"cpu": "1200m"})],
    })
    # steady state: app 1000 + sidecar 500 = 1500; init phase: 1200 + sidecar 500 = 1700
    assert p.requests["cpu"] == 1700


def test_sidecar_after_large_init_does_not_count_against_it() -> None:
    p = _pod({
        "containers": [_c("app", {"cpu": "1"})],
        "initContainers": [_c("init", {"cpu": "2"}),
                           _c("sidecar", {"cpu": "500m"}, restart="Always")],
    })
    assert p.requests["cpu"] == 2000  # max(1000+500, 2000, 500)


def test_limits_without_requests_default_requests() -> None:
    p = _pod({"containers": [_c("a", limits={"cpu": "1", "memory": "1Gi"})]})
    assert p.requests == {"cpu": 1000, "memory": GI}
    assert p.qos == "Guaranteed"


@pytest.mark.parametrize(("containers", "qos"), [
    ([_c("a")], "BestEffort"),
    ([_c("a", {"cpu": "1"})], "Burstable"),
    ([_c("a", {"cpu": "1", "memory": "1Gi"}, {"cpu": "1", "memory": "1Gi"})], "Guaranteed"),
    ([_c("a", {"cpu": "1", "memory": "1Gi"}, {"cpu": "2", "memory": "1Gi"})], "Burstable"),
    # Guaranteed needs limits on cpu and memory in every container.
    ([_c("a", {"cpu": "1", "memory": "1Gi"}, {"cpu": "1", "memory": "1Gi"}),
      _c("b", {"cpu": "1"}, {"cpu": "1"})], "Burstable"),
    # Extended resources do not affect QoS.
    ([_c("a", {"nvidia.com/gpu": "1"}, {"nvidia.com/gpu": "1"})], "BestEffort"),
    # A zero request counts as unset.
    ([_c("a", {"cpu": "0"})], "BestEffort"),
])
def test_qos_classes(containers: list, qos: str) -> None:
    assert _pod({"containers": containers}).qos == qos


def test_scoring_defaults_fill_only_missing_requests() -> None:
    p = _pod({"containers": [_c("a", {"cpu": "0"})]})
    assert p.nonzero_cpu == 0  # explicit zero is kept
    assert p.nonzero_memory == 200 * MI


def test_priority_from_class_global_default_and_zero() -> None:
    c = cluster_of(priority_class("high", 1000), priority_class("dflt", 5, global_default=True),
                   node("n1"), pod("a", spec_extra={"priorityClassName": "high"}), pod("b"),
                   pod("c", spec_extra={"priorityClassName": "system-node-critical"}))
    assert c.pending["default/a"].priority == 1000
    assert c.pending["default/b"].priority == 5
    assert c.pending["default/c"].priority == 2000001000


def test_spec_priority_wins_and_zero_without_classes() -> None:
    c = cluster_of(node("n1"), pod("a", priority=7), pod("b"))
    assert c.pending["default/a"].priority == 7
    assert c.pending["default/b"].priority == 0


def test_preemption_policy_comes_from_the_class() -> None:
    c = cluster_of(priority_class("np", 100, policy="Never"), node("n1"),
                   pod("a", spec_extra={"priorityClassName": "np"}))
    assert c.pending["default/a"].preemption_policy == "Never"


def test_unknown_priority_class_is_an_input_error() -> None:
    with pytest.raises(InputError, match="Pod default/a.*unknown PriorityClass 'nope'"):
        cluster_of(node("n1"), pod("a", spec_extra={"priorityClassName": "nope"}))


def test_user_class_above_one_billion_is_an_input_error() -> None:
    with pytest.raises(InputError, match="PriorityClass huge"):
        cluster_of(priority_class("huge", 1_000_000_001))


def test_two_global_defaults_are_an_input_error() -> None:
    with pytest.raises(InputError, match="more than one globalDefault"):
        cluster_of(priority_class("a", 1, True), priority_class("b", 2, True))


def test_bad_quantity_names_the_pod() -> None:
    with pytest.raises(InputError) as err:
        cluster_of(node("n1"), pod("a", cpu="two"))
    assert "test.yaml, document 2: Pod default/a:" in str(err.value)
    assert "'two'" in str(err.value)


def test_bind_many_matches_bind() -> None:
    """Loading binds pods in one batch; the arrays and indexes equal per-pod binds."""
    from builders import node, pod

    from kubepreempt.api.errors import Source
    from kubepreempt.api.objects import parse_pod as parse
    from kubepreempt.cluster import Cluster, build_cluster
    from kubepreempt.manifests import Documents, RawObject

    docs = Documents()
    for d in (node("a"), node("b"), pod("x", "100m", "1Gi", node_name="a", priority=5),
              pod("y", "2", node_name="b", example_com_gpu="2"),
              pod("z", memory="3Gi", node_name="a", priority=-1),
              # same shape as x: loaded lazily, the two share one requests dict
              pod("w", "100m", "1Gi", node_name="b", priority=5)):
        docs.add(RawObject(d["kind"], d, Source("t")))
    batch = build_cluster(docs, warn=False)
    single = Cluster(priority=batch.priority)
    single.add_nodes(batch.nodes)
    for o in docs.of("Pod"):
        p = parse(o.body, o.source, single.priority.resolve)
        single.bind(p, p.node_name)
    assert batch.resources == single.resources
    for name in ("requested", "nonzero", "alloc"):
        assert (getattr(batch, name) == getattr(single, name)).all()
    assert set(batch.prio_requested) == set(single.prio_requested)
    for prio in batch.prio_requested:
        assert (batch._prio_rows(prio) == single._prio_rows(prio)).all()  # widened lazily
    assert [list(p) for p in batch.node_pods] == [list(p) for p in single.node_pods]
    assert batch.change_log == single.change_log


def test_pdb_disruptions_allowed_as_the_disruption_controller_computes() -> None:
    from builders import pdb

    from kubepreempt.cluster import pdb_disruptions_allowed

    # Three matching pods, two bound (healthy), one pending: minAvailable 1 allows 1.
    c = cluster_of(node("n1"), pod("a", "1", node_name="n1", labels={"app": "x"}),
                   pod("b", "1", node_name="n1", labels={"app": "x"}),
                   pod("c", "1", labels={"app": "x"}),
                   pdb("p", {"app": "x"}, min_available=1))
    budget = c.pdbs[0]
    pods = list(c.pods.values()) + list(c.pending.values())
    assert pdb_disruptions_allowed(budget, pods) == 1 == budget.disruptions_allowed
    budget.status_disruptions_allowed = 0  # the status, when given, wins
    assert pdb_disruptions_allowed(budget, pods) == 0
