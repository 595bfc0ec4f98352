"""``flavorFungibility.preference`` (Kueue v0.15, #7316): read and validated as the API
does; how it ranks flavors is checked by upstream's tables (TestSchedule
"PreemptionOverBorrowing preference: ...", TestAssignFlavors, TestHierarchical)."""

from __future__ import annotations

import pytest
from builders.kueue import CURRENT, V07, cq, flavor, inputs

from kubepreempt.api.errors import InputError

TRY_NEXT = {"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "TryNextFlavor"}


def test_preference_is_read_in_current_kueue() -> None:
    q = cq("q", [("default", {"cpu": "1"})],
           fungibility={**TRY_NEXT, "preference": "PreemptionOverBorrowing"})
    inp = inputs([flavor("default"), q], CURRENT)
    assert inp.cluster_queues["q"].fungibility_preference == "PreemptionOverBorrowing"


def test_preference_needs_both_policies_try_next_flavor() -> None:
    # The CEL rule on FlavorFungibility: "preference can only be set when both
    # whenCanBorrow and whenCanPreempt are TryNextFlavor" (whenCanBorrow defaults to
    # MayStopSearch).
    q = cq("q", [("default", {"cpu": "1"})],
           fungibility={"whenCanPreempt": "TryNextFlavor", "preference": "BorrowingOverPreemption"})
    with pytest.raises(InputError, match="preference can only be set when both"):
        inputs([flavor("default"), q], CURRENT)


def test_preference_is_not_a_v07_field() -> None:
    q = cq("q", [("default", {"cpu": "1"})],
           fungibility={"whenCanPreempt": "TryNextFlavor", "preference": "PreemptionOverBorrowing"})
    assert inputs([flavor("default"), q], V07).cluster_queues["q"].fungibility_preference == ""
