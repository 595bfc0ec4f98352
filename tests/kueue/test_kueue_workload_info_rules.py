"""What ``kueue/quota.py`` reads off one workload.

``queue_order_time``: Kueue's ``workload.Ordering.GetQueueOrderTimestamp``
(``pkg/workload/workload.go``), with the default ``requeuingTimestamp: Eviction``.

A workload evicted (``Evicted`` condition ``True``) for ``PodsReadyTimeout`` is ordered by
the eviction's ``lastTransitionTime``; with the releases that have
``IsEvictedByAdmissionCheck``, an eviction for ``AdmissionCheck`` too; any other eviction
(preemption, for one) keeps the creation time, so a preempted workload is not sent to
the back of its queue.

``WorkloadInfo.usage`` / ``flat_usage``: ``workload.Info.FlavorResourceUsage``, the pod
sets' total requests summed per flavor and resource.

``CQState.dominant_resource_share``: Kueue v0.7's ``ClusterQueue.dominantResourceShare``
(``borrowed * 1000 / lendable``, then ``* 1000 / weight`` in milli; nothing borrowed is
``(0, "")``; a zero weight while borrowing is ``math.MaxInt``).

``lowest_subtree_that_fits`` / ``subtree_height``: ``FindHeightOfLowestSubtreeThatFits``
and ``getNodeHeight`` (``min(childCQs + childCohorts, 1)``, then one more per cohort
level).
"""

from __future__ import annotations

import pytest
from builders.kueue import cq, flavor, inputs, iso, pod_set, wl

from kubepreempt.kueue.quota import (
    Snapshot,
    lowest_subtree_that_fits,
    queue_order_time,
    subtree_height,
    workload_info,
)

CREATED, EVICTED = 1_000.0, 5_000.0


def _evicted(reason: str, status: str = "True") -> dict:
    return {"type": "Evicted", "status": status, "reason": reason, "message": "",
            "lastTransitionTime": iso(EVICTED)}


def _order_time(conditions: list[dict], admission_check_evictions: bool) -> float:
    loaded = inputs([wl("w", created=CREATED, conditions=conditions)])
    return queue_order_time(workload_info(loaded.workloads["default/w"]),
                            admission_check_evictions)


@pytest.mark.parametrize(("conditions", "checks", "expected"), [
    ([], False, CREATED),
    ([_evicted("PodsReadyTimeout")], False, EVICTED),
    ([_evicted("PodsReadyTimeout")], True, EVICTED),
    ([_evicted("AdmissionCheck")], True, EVICTED),
    ([_evicted("AdmissionCheck")], False, CREATED),   # a release without that rule
    ([_evicted("Preempted")], True, CREATED),
    ([_evicted("PodsReadyTimeout", status="False")], True, CREATED),
])
def test_queue_order_time(conditions, checks, expected) -> None:
    assert _order_time(conditions, checks) == expected


def test_usage_sums_pod_sets_per_flavor_and_resource() -> None:
    # workload.Info.FlavorResourceUsage: every pod set's total requests added up per
    # (flavor, resource). Two pod sets on flavor "default" (2 x 1 CPU and 1 x 2 CPU) and
    # memory of the first on "big"; a resource the admission gives no flavor (a
    # hand-written admission) is left out without hiding the others.
    sets = [pod_set("a", 2, {"cpu": "1", "memory": "1Gi"}), pod_set("b", 1, {"cpu": "2"})]
    body = wl("w", pod_sets=sets, admitted="q", flavors={"cpu": "default", "memory": "big"})
    body["spec"]["podSets"][1]["template"]["spec"]["containers"][0]["resources"][
        "requests"] = {"example.com/gpu": "1", "cpu": "2"}
    info = workload_info(inputs([body]).workloads["default/w"])
    gib = 1 << 30
    assert info.usage() == {"default": {"cpu": 4000}, "big": {"memory": 2 * gib}}
    assert info.flat_usage() == {("default", "cpu"): 4000, ("big", "memory"): 2 * gib}


def _v07_share(queues: list[dict], name: str, used_cpu: int) -> tuple[int, str]:
    inp = inputs([flavor("default"), *queues])
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, [], inp.config, inp.cohorts)
    st = snap.cqs[name]
    st.add_usage(("default", "cpu"), used_cpu)
    return st.dominant_resource_share()


def test_v07_dominant_resource_share_scales_by_1000_twice() -> None:
    # Kueue v0.7 ClusterQueue.dominantResourceShare: ratio = borrowed * 1000 / lendable,
    # then drs * 1000 / weight in milli. "a" (nominal 0) borrows all of the 1 CPU "b"
    # lends: ratio 1000, weight 1 (1000 milli): 1000.
    queues = [cq("a", [("default", {"cpu": "0"})], cohort="c", weight="1"),
              cq("b", [("default", {"cpu": "1"})], cohort="c", weight="1")]
    assert _v07_share(queues, "a", 1000) == (1000, "cpu")
    # Usage exactly at nominal borrows nothing: (0, "") with no dominant resource.
    assert _v07_share(queues, "b", 1000) == (0, "")
    # A zero weight while borrowing: math.MaxInt and no resource.
    zero = [cq("a", [("default", {"cpu": "0"})], cohort="c", weight="0"),
            cq("b", [("default", {"cpu": "1"})], cohort="c", weight="1")]
    assert _v07_share(zero, "a", 500) == ((1 << 63) - 1, "")


def test_lowest_subtree_that_fits_and_node_height() -> None:
    # FindHeightOfLowestSubtreeThatFits: a request within the queue's own nominal quota
    # is height 0, and "smaller than the whole tree" is whether the queue has a parent;
    # getNodeHeight: a cohort of queues only is 1, however many queues it has.
    inp = inputs([flavor("default"),
                  cq("a", [("default", {"cpu": "2"})], cohort="c"),
                  cq("b", [("default", {"cpu": "2"})], cohort="c"),
                  cq("lone", [("default", {"cpu": "2"})])])
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, [], inp.config, inp.cohorts)
    fr = ("default", "cpu")
    assert lowest_subtree_that_fits(snap.cqs["a"], fr, 1000) == (0, True)
    assert lowest_subtree_that_fits(snap.cqs["lone"], fr, 1000) == (0, False)
    assert lowest_subtree_that_fits(snap.cqs["a"], fr, 3000) == (1, False)
    assert subtree_height(snap.cohorts["c"]) == 1
