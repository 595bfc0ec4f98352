"""Kueue v0.7 edges: queue-order time, validateResources, unparsable affinity, borrowing limit.

Expected answers from Kueue v0.7.0: ``workload.Ordering.GetQueueOrderTimestamp``,
``scheduler.validateResources``, ``flavorassigner.findFlavorForPodSetResource`` with
component-helpers' ``LazyErrorNodeSelector``, and ``fitsResourceQuota``.
"""

from __future__ import annotations

from typing import Any

from builders.kueue import BASE, cq, flavor, iso, pod_set, run, wl


def _evicted(reason: str, at: float) -> dict[str, Any]:
    return {"type": "Evicted", "status": "True", "reason": reason, "message": "",
            "lastTransitionTime": iso(at)}


def _queue_order_case(reason: str) -> list[dict[str, Any]]:
    """Same priority, withinClusterQueue LowerOrNewerEqualPriority: the admitted workload
    was created after the preemptor, but the preemptor was evicted (``reason``) later."""
    return [flavor("default"),
            cq("q", [("default", {"cpu": "2"})], within="LowerOrNewerEqualPriority"),
            wl("old", {"cpu": "2"}, 0, admitted="q", created=BASE + 10),
            wl("in", {"cpu": "2"}, 0, queue="q", created=BASE,
               conditions=[_evicted(reason, BASE + 50)])]


def test_pods_ready_timeout_eviction_moves_the_queue_order_time() -> None:
    # Ordered at its eviction (BASE+50), the preemptor is newer than "old" (BASE+10).
    d = run(_queue_order_case("PodsReadyTimeout"), "in")
    assert (d.result, d.victims) == ("pending", [])


def test_admission_check_eviction_keeps_creation_time_in_v0_7() -> None:
    # v0.7 ignores AdmissionCheck evictions: ordered at creation (BASE), "old" is newer.
    d = run(_queue_order_case("AdmissionCheck"), "in")
    assert (d.result, d.victims) == ("preempt", ["default/old"])


def _limited(requests: dict[str, str], limits: dict[str, str]) -> dict[str, Any]:
    return {"name": "c", "resources": {"requests": requests, "limits": limits}}


def test_request_above_limit_keeps_the_workload_pending() -> None:
    ps = {"name": "main", "count": 1, "template": {"spec": {
        "initContainers": [_limited({"cpu": "2"}, {"cpu": "1"})],
        "containers": [_limited({"cpu": "1"}, {"cpu": "1"}),
                       _limited({"cpu": "2", "memory": "2Gi"}, {"cpu": "1", "memory": "1Gi"})]}}}
    objs = [flavor("default"), cq("q", [("default", {"cpu": "10", "memory": "10Gi"})]),
            wl("in", pod_sets=[ps], queue="q")]
    d = run(objs, "in")
    assert d.result == "pending"
    assert d.flavors == {}  # rejected before flavors are assigned
    assert d.message == (
        "resource validation failed: podSets.main.initContainers[0][cpu] requests exceed "
        "it's limits; podSets.main.containers[1][cpu, memory] requests exceed it's limits")


def test_request_equal_to_limit_is_valid() -> None:
    ps = {"name": "main", "count": 1, "template": {"spec": {
        "containers": [_limited({"cpu": "1"}, {"cpu": "1"})]}}}
    objs = [flavor("default"), cq("q", [("default", {"cpu": "10"})]),
            wl("in", pod_sets=[ps], queue="q")]
    assert run(objs, "in").result == "admit"


def _affinity(*terms: list[dict[str, Any]]) -> dict[str, Any]:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": t} for t in terms]}}}


_BAD = {"key": "zone", "operator": "In", "values": ["not valid!"]}
_LABEL_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, "
              "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
              "'MyValue',  or 'my_value',  or '12345', regex used for validation is "
              "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
_TWO_ZONES = [flavor("f1", {"zone": "a"}), flavor("f2", {"zone": "b"}),
              cq("q", [("f1", {"cpu": "2"}), ("f2", {"cpu": "2"})])]


def test_unparsable_affinity_value_fails_the_pod_set() -> None:
    w = wl("in", pod_sets=[pod_set("main", 1, {"cpu": "1"}, affinity=_affinity([_BAD]))],
           queue="q")
    d = run([*_TWO_ZONES, w], "in")
    assert (d.result, d.mode) == ("pending", "NoFit")
    assert d.message == ("failed to assign flavors to pod set main: nodeSelectorTerms[0]."
                         'matchExpressions[0].values[0][zone]: Invalid value: "not valid!": '
                         + _LABEL_MSG)


def test_unparsable_term_is_ignored_only_when_another_term_matches() -> None:
    # Parse errors are reported only when no term matches (LazyErrorNodeSelector.Match).
    def case(zone: str) -> Any:
        ok = {"key": "zone", "operator": "In", "values": [zone]}
        ps = pod_set("main", 1, {"cpu": "1"}, affinity=_affinity([_BAD], [ok]))
        return run([*_TWO_ZONES, wl("in", pod_sets=[ps], queue="q")], "in")

    d = case("a")  # f1 matches the second term
    assert (d.result, d.flavors) == ("admit", {"main": {"cpu": "f1"}})
    d = case("b")  # f1 matches no term: the error ends the search before f2 is tried
    assert (d.result, d.flavors) == ("pending", {"main": {}})
    assert d.message.startswith("failed to assign flavors to pod set main: nodeSelectorTerms[0]")


def test_unparsable_value_on_a_key_no_flavor_uses_is_dropped() -> None:
    bad = {"key": "rack", "operator": "In", "values": ["not valid!"]}
    w = wl("in", pod_sets=[pod_set("main", 1, {"cpu": "1"}, affinity=_affinity([bad]))],
           queue="q")
    assert run([*_TWO_ZONES, w], "in").flavors == {"main": {"cpu": "f1"}}


def test_usage_exactly_at_the_borrowing_limit_fits() -> None:
    # fitsResourceQuota: borrowing limit exceeded only when used + val > nominal + limit.
    # a: nominal 2, borrowingLimit 2, using 2; incoming 2 -> 4 == 2 + 2, cohort has 6.
    objs = [flavor("default"),
            cq("a", [("default", {"cpu": ("2", "2")})], cohort="c"),
            cq("b", [("default", {"cpu": "4"})], cohort="c"),
            wl("used", {"cpu": "2"}, admitted="a"),
            wl("in", {"cpu": "2"}, queue="a")]
    d = run(objs, "in")
    assert (d.result, d.borrowing, d.flavors) == ("admit", True, {"main": {"cpu": "default"}})
    objs[-1] = wl("in", {"cpu": "3"}, queue="a")  # 5 > 4: over the limit, no quota for it
    d = run(objs, "in")
    assert d.result == "pending"
    assert "borrowing limit for cpu in flavor default exceeded" in d.message
