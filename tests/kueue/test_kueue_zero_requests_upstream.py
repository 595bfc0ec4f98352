"""A zero request for a resource the ClusterQueue does not cover needs no flavor.

Ported from upstream ``pkg/scheduler/scheduler_test.go`` (``TestSchedule``): "admit workload
with zero-quantity request for resource not in ClusterQueue" and "preempt when workload
requests zero of a resource not defined in ClusterQueue" (issue #8079; ``assignFlavors``
skips the resource). Kueue v0.7 failed the pod set instead.
"""

from __future__ import annotations

from builders.kueue import CURRENT, V07, cq, flavor, run, wl


def test_zero_request_for_uncovered_resource_is_admitted() -> None:
    # Upstream's "sales" queue also sets borrowingLimit 0 without a cohort, which its unit
    # test never sends through the webhook; kubepreempt validates it, so it is left out.
    objs = [flavor("default"), cq("sales", [("default", {"cpu": "50"})]),
            wl("zero-resource-wl", {"cpu": "1", "example.com/gpu": "0"}, queue="sales")]
    d = run(objs, "zero-resource-wl", CURRENT)
    assert d.result == "admit"
    assert d.flavors == {"main": {"cpu": "default"}}


def test_zero_request_for_uncovered_resource_preempts() -> None:
    objs = [flavor("default"),
            cq("preempt-zero-gpu-cq", [("default", {"cpu": "4"})], within="LowerPriority"),
            wl("preemptor", {"cpu": "2", "example.com/gpu": "0"}, queue="preempt-zero-gpu-cq"),
            wl("low-priority", {"cpu": "4"}, priority=-1, queue="preempt-zero-gpu-cq",
               admitted="preempt-zero-gpu-cq")]
    d = run(objs, "preemptor", CURRENT)
    assert d.result == "preempt"
    assert d.victims == ["default/low-priority"]
    assert d.reasons == {"default/low-priority": "InClusterQueue"}


def test_v07_still_fails_the_uncovered_resource() -> None:
    objs = [flavor("default"), cq("sales", [("default", {"cpu": "50"})]),
            wl("w", {"cpu": "1", "example.com/gpu": "0"}, queue="sales")]
    d = run(objs, "w", V07)
    assert d.result == "pending"
    assert "resource example.com/gpu unavailable in ClusterQueue" in d.message
