"""The ClusterQueue heap order's queue-order time (upstream ``pkg/cache/queue``'s
``baseCompareFunc`` over ``Ordering.GetQueueOrderTimestamp``, main ff69552e): a workload
evicted by an AdmissionCheck queues from its eviction time in current Kueue, from its
creation in v0.7."""

from __future__ import annotations

from builders.kueue import BASE, iso, popped_in_order, wl


def _heads_in_order(admission_check_evictions: bool) -> list[str]:
    """``evicted`` (created first, evicted by an AdmissionCheck at +100 s) and ``newer``
    (created at +50 s), same priority, popped one by one from one ClusterQueue."""
    evicted = wl("evicted", created=BASE, conditions=[
        {"type": "Evicted", "status": "True", "reason": "AdmissionCheck", "message": "",
         "lastTransitionTime": iso(BASE + 100)}])
    newer = wl("newer", created=BASE + 50)
    return popped_in_order([evicted, newer], admission_check_evictions)


def test_an_admission_check_eviction_resets_the_queue_order_time() -> None:
    """Current ``GetQueueOrderTimestamp``: ``IsEvictedByAdmissionCheck`` gives the
    Evicted condition's time (+100 s), so the workload created at +50 s goes first."""
    assert _heads_in_order(True) == ["newer", "evicted"]


def test_without_the_switch_the_creation_time_orders() -> None:
    """Kueue v0.7 used the eviction time only after a PodsReady timeout: the older
    creation time puts the evicted workload first."""
    assert _heads_in_order(False) == ["evicted", "newer"]
