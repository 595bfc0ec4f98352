"""``quota.queue_order_time``: Kueue's ``workload.Ordering.GetQueueOrderTimestamp``
(``pkg/workload/workload.go``), with the default ``requeuingTimestamp: Eviction``.

A workload evicted (``Evicted`` condition ``True``) for ``PodsReadyTimeout`` is ordered by
the eviction's ``lastTransitionTime``; with the releases that have
``IsEvictedByAdmissionCheck``, an eviction for ``AdmissionCheck`` too; any other eviction
(preemption, for one) keeps the creation time, so a preempted workload is not sent to
the back of its queue.
"""

from __future__ import annotations

import pytest
from builders.kueue import inputs, iso, wl

from kubepreempt.kueue.quota import queue_order_time, workload_info

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
