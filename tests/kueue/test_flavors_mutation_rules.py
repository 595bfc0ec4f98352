"""Flavor-assigner rules the upstream tables leave unchecked (``pkg/scheduler/
flavorassigner/flavorassigner.go``, kueue main ff69552e for current Kueue, v0.7.0 for
``--kueue-version v0.7``): status messages, the order of checks, accumulated pod-set usage,
zero requests, taints, label keys, and v0.7's ``fitsResourceQuota`` / ``shouldTryNextFlavor``
boundaries. Each expected answer is worked out from the upstream function named."""

from __future__ import annotations

from builders.kueue import CURRENT, V07, cq, flavor, pod_set, run, wl
from builders.kueue_assign import assign, assigner

from kubepreempt.kueue.flavors import (
    G_FIT,
    G_NO_CANDIDATES,
    G_NO_FIT,
    G_PREEMPT,
    G_RECLAIM,
    Mode,
    is_preferred,
)
from kubepreempt.kueue.objects import PREEMPTION_OVER_BORROWING

BOTH = (V07, CURRENT)


def test_mode_strings() -> None:
    """``FlavorAssignmentMode.String``: NoFit, Preempt, Fit (the decision's ``mode``)."""
    assert [str(m) for m in (Mode.NO_FIT, Mode.PREEMPT, Mode.FIT)] == ["NoFit", "Preempt", "Fit"]


def test_is_preferred_candidates_then_preference() -> None:
    """``isPreferred``: a mode with preemption candidates beats one without whatever the
    borrowing levels; PreemptionOverBorrowing compares levels first, then modes, strictly
    (an equal mode is not preferred)."""
    assert not is_preferred((G_NO_CANDIDATES, 0), (G_PREEMPT, 0))
    assert is_preferred((G_PREEMPT, 2), (G_NO_CANDIDATES, 0))
    assert not is_preferred((G_PREEMPT, 1), (G_PREEMPT, 1), PREEMPTION_OVER_BORROWING)
    assert not is_preferred((G_PREEMPT, 0), (G_RECLAIM, 0), PREEMPTION_OVER_BORROWING)
    assert is_preferred((G_RECLAIM, 0), (G_PREEMPT, 0), PREEMPTION_OVER_BORROWING)
    assert is_preferred((G_PREEMPT, 0), (G_FIT, 1), PREEMPTION_OVER_BORROWING)
    assert not is_preferred((G_PREEMPT, 0), (G_FIT, 1))
    assert not is_preferred((G_NO_FIT, 0), (G_NO_FIT, 5))


def test_fitting_assignment_has_no_status() -> None:
    """A Fit pod set's ``Status`` is nil: ``Message()`` skips it (empty message)."""
    for version in BOTH:
        objs = [flavor("default"), cq("q", [("default", {"cpu": "4"})]),
                wl("in", {"cpu": "2"}, queue="q")]
        a = assign(objs, version=version)
        assert (a.mode, a.message(), [ps.fits for ps in a.pod_sets]) == (Mode.FIT, "", [True])


def test_message_joins_reasons_and_pod_sets_and_counts_earlier_pod_sets() -> None:
    """``Status.Message`` sorts a pod set's reasons and joins them with ", ";
    ``Assignment.Message`` joins the pod sets with "; ". Each resource of a group is
    assigned once (``groupFlavors`` found -> continue), so each reason appears once; pod
    set b's quantity includes what pod set a was assigned (``assignmentUsage``)."""
    objs = [flavor("default"), cq("q", [("default", {"cpu": "2", "memory": "2Gi"})]),
            wl("old", {"cpu": "2", "memory": "2Gi"}, admitted="q"),
            wl("in", pod_sets=[pod_set("a", 1, {"cpu": "1", "memory": "1Gi"}),
                               pod_set("b", 1, {"cpu": "1", "memory": "1Gi"})], queue="q")]
    a = assign(objs, version=CURRENT)
    assert a.mode == Mode.PREEMPT
    assert a.message() == (
        "couldn't assign flavors to pod set a: "
        "insufficient unused quota for cpu in flavor default, 1 more needed, "
        "insufficient unused quota for memory in flavor default, 1Gi more needed; "
        "couldn't assign flavors to pod set b: "
        "insufficient unused quota for cpu in flavor default, 2 more needed, "
        "insufficient unused quota for memory in flavor default, 2Gi more needed")


def test_pod_sets_share_flavor_usage_exactly() -> None:
    """Two pod sets of 2 cpu fit a 4-cpu flavor exactly (2 + 2 <= 4); two of 3 do not, the
    second failing on the first's usage: current ``fitsResourceQuota`` reports the
    maximum capacity, v0.7's the ClusterQueue quota. Assignment stops at the pod set that
    got no flavor."""
    for version in BOTH:
        base = [flavor("default"), cq("q", [("default", {"cpu": "4"})])]
        two = wl("in", pod_sets=[pod_set("a", 1, {"cpu": "2"}), pod_set("b", 1, {"cpu": "2"})],
                 queue="q")
        a = assign([*base, two], version=version)
        assert a.mode == Mode.FIT
        three = wl("in", pod_sets=[pod_set("a", 1, {"cpu": "3"}), pod_set("b", 1, {"cpu": "3"}),
                                   pod_set("c", 1, {"cpu": "1"})], queue="q")
        a = assign([*base, three], version=version)
        assert a.mode == Mode.NO_FIT
        assert [(ps.name, ps.flavors) for ps in a.pod_sets][1:] == [("b", None)]
        why = ("insufficient quota for cpu in flavor default, previously considered podsets "
               "requests (3) + current podset request (3) > maximum capacity (4)"
               if version == CURRENT else
               "insufficient quota for cpu in flavor default in ClusterQueue")
        assert a.message() == f"couldn't assign flavors to pod set b: {why}"


def test_assignment_stops_at_the_first_pod_set_without_flavors() -> None:
    """``assignFlavors`` returns as soon as a pod set with requests got no flavor: later
    pod sets are not assigned and not reported."""
    for version in BOTH:
        objs = [flavor("default"), cq("q", [("default", {"cpu": "4"})]),
                wl("in", pod_sets=[pod_set("a", 1, {"cpu": "8"}), pod_set("b", 1, {"cpu": "9"})],
                   queue="q")]
        a = assign(objs, version=version)
        assert [ps.name for ps in a.pod_sets] == ["a"]
        assert "pod set b" not in a.message()


def test_total_requests_sum_pod_sets_and_skip_unassigned_resources() -> None:
    """``TotalRequestsFor``: pod sets on one flavor-resource add up; a zero request that
    got no flavor (#8079) is skipped without dropping the resources after it."""
    objs = [flavor("default"), cq("q", [("default", {"cpu": "8"})]),
            wl("in", pod_sets=[pod_set("a", 2, {"example.com/foo": "0", "cpu": "1"}),
                               pod_set("b", 1, {"cpu": "3"})], queue="q")]
    fa, info = assigner(objs, version=CURRENT)
    a = fa.assign()
    assert a.mode == Mode.FIT
    assert a.total_requests_for(info) == {"default": {"cpu": 5000}}


def test_zero_requests_and_resource_groups() -> None:
    """``assignFlavors``: only a zero request for a resource no group covers is skipped;
    a zero request of a covered resource gets its group's flavor; a resource assigned with
    its group is skipped (continue) and later resources are still assigned."""
    objs = [flavor("default"), flavor("gpu"),
            cq("q", [("default", {"cpu": "4", "memory": "4Gi"})],
               [("gpu", {"nvidia.com/gpu": "2"})]),
            wl("in", {"aaa.io/foo": "0", "cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "0"},
               queue="q")]
    a = assign(objs, version=CURRENT)
    assert a.mode == Mode.FIT
    assert a.flavors() == {"main": {"cpu": "default", "memory": "default",
                                    "nvidia.com/gpu": "gpu"}}
    objs[-1] = wl("in", {"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "1"}, queue="q")
    assert assign(objs, version=CURRENT).flavors() == {
        "main": {"cpu": "default", "memory": "default", "nvidia.com/gpu": "gpu"}}


def test_missing_flavor_is_reported_and_skipped() -> None:
    """``checkFlavorForPodSets``: a flavor missing from the ResourceFlavors is reported
    ("flavor <name> not found") and the next flavor is tried."""
    for version in BOTH:
        objs = [flavor("f1"), flavor("f2"),
                cq("q", [("f1", {"cpu": "4"}), ("f2", {"cpu": "2"})]),
                wl("old", {"cpu": "2"}, admitted="q", flavors={"cpu": "f2"}),
                wl("in", {"cpu": "1"}, queue="q")]
        fa, _ = assigner(objs, version=version)
        fa.flavors = {n: f for n, f in fa.flavors.items() if n != "f1"}
        a = fa.assign()
        assert (a.mode, a.flavors()) == (Mode.PREEMPT, {"main": {"cpu": "f2"}})
        assert a.message() == ("couldn't assign flavors to pod set main: flavor f1 not found, "
                               "insufficient unused quota for cpu in flavor f2, 1 more needed")


def test_untolerated_taints_by_effect_and_their_wording() -> None:
    """``FindMatchingUntoleratedTaint`` filtered to NoSchedule and NoExecute (a
    PreferNoSchedule taint is passed over, not the end of the search); the reason prints
    the ``corev1.Taint`` value with ``%s``: ``{key value effect <nil>}`` (upstream test
    "untolerated taint {instance spot NoSchedule <nil>} in flavor tainted")."""
    for version in BOTH:
        no_exec = [{"key": "dedicated", "value": "", "effect": "NoExecute"}]
        objs = [flavor("f1", taints=no_exec), cq("q", [("f1", {"cpu": "4"})]),
                wl("in", {"cpu": "1"}, queue="q")]
        a = assign(objs, version=version)
        assert a.mode == Mode.NO_FIT
        assert a.message() == ("couldn't assign flavors to pod set main: "
                               "untolerated taint {dedicated  NoExecute <nil>} in flavor f1")
        two = [{"key": "soft", "value": "x", "effect": "PreferNoSchedule"},
               {"key": "spot", "value": "true", "effect": "NoSchedule"}]
        objs[0] = flavor("f1", taints=two)
        a = assign(objs, version=version)
        assert a.message() == ("couldn't assign flavors to pod set main: "
                               "untolerated taint {spot true NoSchedule <nil>} in flavor f1")


def test_not_in_with_an_invalid_value_is_a_parse_error() -> None:
    """``labels.NewRequirement`` validates NotIn values as label values, as In's: the pod
    set fails with the error (``Status.err``), no other flavor is tried."""
    aff = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": "zone", "operator": "NotIn", "values": ["a b"]}]}]}}}
    objs = [flavor("f1", {"zone": "a"}), flavor("f2", {"zone": "b"}),
            cq("q", [("f1", {"cpu": "4"}), ("f2", {"cpu": "4"})]),
            wl("in", pod_sets=[pod_set("main", 1, {"cpu": "1"}, affinity=aff)], queue="q")]
    for version in BOTH:
        a = assign(objs, version=version)
        assert a.mode == Mode.NO_FIT
        assert a.pod_sets[0].error is not None
        assert a.message().startswith("failed to assign flavors to pod set main: ")
        assert "nodeSelectorTerms[0].matchExpressions[0].values[0][zone]" in a.message()


def test_search_stops_at_a_fitting_flavor_under_try_next_flavor_for_borrowing() -> None:
    """``shouldTryNextFlavor``: Fit without borrowing stops the search even with
    whenCanBorrow TryNextFlavor, so a later flavor (here one whose affinity does not
    parse) is never checked."""
    aff = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": "zone", "operator": "In", "values": ["a b"]}]}]}}}
    objs = [flavor("f1"), flavor("f2", {"zone": "b"}),
            cq("q", [("f1", {"cpu": "4"}), ("f2", {"cpu": "4"})],
               fungibility={"whenCanBorrow": "TryNextFlavor"}),
            wl("in", pod_sets=[pod_set("main", 1, {"cpu": "1"}, affinity=aff)], queue="q")]
    a = assign(objs, version=CURRENT)
    assert (a.mode, a.flavors(), a.message()) == (Mode.FIT, {"main": {"cpu": "f1"}}, "")


def test_preemption_over_borrowing_ranks_resources_within_a_flavor() -> None:
    """``findFlavorForPodSets`` keeps the worst mode over a flavor's resources by the
    ClusterQueue's ``isPreferred``: with PreemptionOverBorrowing, f1's cpu needing
    preemption (Preempt, 0) ranks above its memory fitting by borrowing (Fit, 1), so f1
    is (Fit, 1); f2 is (Preempt, 0) and, by borrowing level first, preferred to f1 once
    both were tried (TryNextFlavor for both). Ranked by BorrowingOverPreemption f1 would
    be (Preempt, 0) and f2 not better. The oracle answers as upstream's ``testOracle``
    does by default: Preempt, borrowing level 0."""
    fung = {"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "TryNextFlavor",
            "preference": PREEMPTION_OVER_BORROWING}
    objs = [flavor("f1"), flavor("f2"),
            cq("q", [("f1", {"cpu": "2", "memory": "0"}), ("f2", {"cpu": "2", "memory": "4Gi"})],
               cohort="c", fungibility=fung),
            cq("lender", [("f1", {"cpu": "0", "memory": "4Gi"}),
                          ("f2", {"cpu": "0", "memory": "0"})], cohort="c"),
            wl("old1", {"cpu": "2"}, admitted="q", flavors={"cpu": "f1"}),
            wl("old2", {"cpu": "2"}, admitted="q", flavors={"cpu": "f2"}),
            wl("in", {"cpu": "1", "memory": "1Gi"}, queue="q")]
    a = assign(objs, version=CURRENT, oracle=lambda _fr, _q: (G_PREEMPT, 0))
    assert a.flavors() == {"main": {"cpu": "f2", "memory": "f2"}}
    modes = {r: f.mode for r, f in (a.pod_sets[0].flavors or {}).items()}
    assert modes == {"cpu": Mode.PREEMPT, "memory": Mode.FIT}
    assert a.borrow_level == 0


def test_v07_flavor_tolerations_and_group_label_keys() -> None:
    """v0.7.0's ``findFlavorForPodSetResource`` checks taints against the pod's
    tolerations only (a flavor's own tolerations count from v0.10, #3722), and matches
    node labels on the keys of every flavor of the group (``resourceGroup.LabelKeys``);
    current Kueue uses the flavor's tolerations and its own label keys."""
    tainted = flavor("f1", taints=[{"key": "spot", "value": "true", "effect": "NoSchedule"}])
    tainted["spec"]["tolerations"] = [{"key": "spot", "operator": "Exists",
                                       "effect": "NoSchedule"}]
    objs = [tainted, flavor("f2"), cq("q", [("f1", {"cpu": "4"}), ("f2", {"cpu": "4"})]),
            wl("in", {"cpu": "1"}, queue="q")]
    assert assign(objs, version=V07).flavors() == {"main": {"cpu": "f2"}}
    assert assign(objs, version=CURRENT).flavors() == {"main": {"cpu": "f1"}}
    objs = [flavor("f1", {"zone": "a"}), flavor("f2", {"arch": "arm"}),
            cq("q", [("f1", {"cpu": "4"}), ("f2", {"cpu": "4"})]),
            wl("in", pod_sets=[pod_set("main", 1, {"cpu": "1"}, nodeSelector={"arch": "arm"})],
               queue="q")]
    assert assign(objs, version=V07).flavors() == {"main": {"cpu": "f2"}}
    assert assign(objs, version=CURRENT).flavors() == {"main": {"cpu": "f1"}}


def test_v07_fits_resource_quota_borrowing_flags() -> None:
    """v0.7.0 ``fitsResourceQuota``: Fit borrows only above nominal (used + val >
    nominal); a Preempt without borrowWithinCohort does not borrow; its reasons name the
    amount missing."""
    objs = [flavor("default"), cq("q", [("default", {"cpu": "4"})]),
            wl("in", {"cpu": "4"}, queue="q")]
    a = assign(objs)
    assert (a.mode, a.borrowing) == (Mode.FIT, False)
    objs.insert(2, wl("old", {"cpu": "2"}, admitted="q"))
    a = assign(objs)
    assert (a.mode, a.borrowing) == (Mode.PREEMPT, False)
    assert a.message() == ("couldn't assign flavors to pod set main: insufficient unused "
                           "quota for cpu in flavor default, 2 more needed")


def _cohort(incoming: str, own: str = "2", limit: str | None = None,
            borrow_within: str | None = None) -> list[dict]:
    """q (nominal ``own`` cpu, optional borrowingLimit) and lender (4 cpu, all in use by
    its own workload) in cohort c."""
    return [flavor("default"),
            cq("q", [("default", {"cpu": (own, limit)})], cohort="c",
               borrow_within=borrow_within, reclaim="Any" if borrow_within else None),
            cq("lender", [("default", {"cpu": "4"})], cohort="c"),
            wl("lent", {"cpu": "4"}, admitted="lender"),
            wl("in", {"cpu": incoming}, queue="q")]


def test_v07_cohort_borrowing_needs_borrow_within_cohort() -> None:
    """v0.7.0 ``fitsResourceQuota`` without borrowWithinCohort: a request above nominal
    is NoFit (preemption cannot make it fit without borrowing)."""
    a = assign(_cohort("4"))
    assert (a.mode, a.borrowing) == (Mode.NO_FIT, False)
    assert a.message() == ("couldn't assign flavors to pod set main: insufficient unused "
                           "quota in cohort for cpu in flavor default, 2 more needed")


def test_v07_borrow_within_cohort_boundaries() -> None:
    """v0.7.0 ``fitsResourceQuota`` with borrowWithinCohort: Preempt while borrowing
    needs val within nominal + borrowingLimit *and* val <= the cohort's requestable quota
    (equal is enough); ``borrow`` is val > nominal (equal is not borrowing); a borrowing
    limit exceeded is reported as such."""
    a = assign(_cohort("6", borrow_within="LowerPriority"))
    assert (a.mode, a.borrowing) == (Mode.PREEMPT, True)
    a = assign(_cohort("7", borrow_within="LowerPriority"))
    assert a.mode == Mode.NO_FIT
    a = assign(_cohort("4", limit="1", borrow_within="LowerPriority"))
    assert (a.mode, a.borrowing) == (Mode.NO_FIT, False)
    assert a.message() == ("couldn't assign flavors to pod set main: "
                           "borrowing limit for cpu in flavor default exceeded")
    objs = _cohort("2", borrow_within="LowerPriority")
    objs.insert(-1, wl("mine", {"cpu": "2"}, admitted="q"))
    a = assign(objs)
    assert (a.mode, a.borrowing) == (Mode.PREEMPT, False)


def test_v07_when_can_preempt_preempt_stops_the_search() -> None:
    """v0.7.0 ``shouldTryNextFlavor``: Preempt with whenCanPreempt Preempt stops at the
    flavor when it does not borrow (whatever whenCanBorrow says), or when it borrows and
    whenCanBorrow is Borrow; a later flavor that fits is then not reached."""
    objs = [flavor("f1"), flavor("f2"),
            cq("q", [("f1", {"cpu": "2"}), ("f2", {"cpu": "4"})],
               fungibility={"whenCanPreempt": "Preempt", "whenCanBorrow": "TryNextFlavor"}),
            wl("old", {"cpu": "2"}, admitted="q", flavors={"cpu": "f1"}),
            wl("in", {"cpu": "2"}, queue="q")]
    a = assign(objs)
    assert (a.mode, a.flavors()) == (Mode.PREEMPT, {"main": {"cpu": "f1"}})
    objs = [flavor("f1"), flavor("f2"),
            cq("q", [("f1", {"cpu": "2"}), ("f2", {"cpu": "4"})], cohort="c",
               borrow_within="LowerPriority", reclaim="Any",
               fungibility={"whenCanPreempt": "Preempt", "whenCanBorrow": "Borrow"}),
            cq("lender", [("f1", {"cpu": "4"}), ("f2", {"cpu": "0"})], cohort="c"),
            wl("lent", {"cpu": "4"}, admitted="lender", flavors={"cpu": "f1"}),
            wl("in", {"cpu": "4"}, queue="q")]
    a = assign(objs)
    assert (a.mode, a.flavors(), a.borrowing) == (Mode.PREEMPT, {"main": {"cpu": "f1"}}, True)


def test_usage_of_every_earlier_pod_set_counts() -> None:
    """``Assignment.append`` adds each pod set's requests to ``Usage.Quota.Assigned``: a
    third pod set sees both earlier ones (1 + 1 + 3 > 4 cpu)."""
    for version in BOTH:
        objs = [flavor("default"), cq("q", [("default", {"cpu": "4"})]),
                wl("in", pod_sets=[pod_set("a", 1, {"cpu": "1"}), pod_set("b", 1, {"cpu": "1"}),
                                   pod_set("c", 1, {"cpu": "3"})], queue="q")]
        a = assign(objs, version=version)
        assert a.mode == Mode.NO_FIT
        assert [ps.flavors for ps in a.pod_sets][2] is None


def test_pod_set_assignment_keeps_count_and_total_requests() -> None:
    """``PodSetAssignment.Count`` is the pod set's count less its reclaimable pods and
    ``Requests`` its total requests at that count, with ``pods`` set to the count when the
    ClusterQueue covers pods (upstream ``assignFlavors``; TestAssignFlavors' ``Count`` and
    ``Requests``)."""
    objs = [flavor("default"), cq("q", [("default", {"cpu": "8", "pods": "10"})]),
            wl("in", pod_sets=[pod_set("main", 3, {"cpu": "1"})], queue="q")]
    objs[-1]["status"] = {"reclaimablePods": [{"name": "main", "count": 1}]}
    for version in BOTH:
        ps = assign(objs, version=version).pod_sets[0]
        assert (ps.count, ps.requests) == (2, {"cpu": 2000, "pods": 2})


def test_decision_of_a_workload_whose_first_pod_set_gets_no_flavor() -> None:
    """Upstream stops at the first pod set without flavors and reports the workload
    NoFit; the decision then names no requests (no pod set holds a flavor) and does not
    look at the later pod sets."""
    objs = [flavor("default"), cq("q", [("default", {"cpu": "4"})]),
            wl("in", pod_sets=[pod_set("a", 1, {"cpu": "8"}), pod_set("b", 1, {"cpu": "1"})],
               queue="q")]
    for version in BOTH:
        d = run(objs, "in", version)
        assert (d.result, d.mode, d.requests) == ("pending", "NoFit", {})
