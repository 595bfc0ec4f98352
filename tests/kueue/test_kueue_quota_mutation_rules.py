"""Quota-tree rules of ``kueue/quota.py`` at the edges the other tests leave open.

Each expected answer is worked out from Kueue's source:

* ``CQState.dominant_resource_share``: Kueue v0.7's ``ClusterQueue.dominantResourceShare``
  (``pkg/cache/clusterqueue.go``): no cohort is ``(0, "")``; per resource the borrowed
  amount ``usage + m*request - nominal`` (when positive) summed over flavors;
  ``ratio = borrowed * 1000 / lendable`` for each resource with ``lendable > 0``, the
  largest ratio wins and a tie goes to the alphabetically first resource; ``drs`` starts
  at ``-1`` (so a borrowed resource nothing lends gives ``-1 * 1000 / weight``); the result
  is ``drs * 1000 / weight.MilliValue()`` with Go's truncating division.
* ``CQState.requestable_cohort_quota`` / ``used_cohort_quota``: v0.7's
  ``RequestableCohortQuota`` (the cohort's requestable resources plus the queue's
  ``guaranteedQuota``, nominal minus lending limit, with the LendingLimit gate) and
  ``UsedCohortQuota`` (cohort usage plus ``min(queue usage, guaranteedQuota)``).
"""

from __future__ import annotations

from typing import Any

from builders.kueue import CURRENT, V07, config, cq, flavor, inputs, run, wl
from builders.kueue_hierarchy import cohort as cohort_object

from kubepreempt.kueue.quota import CQState, Snapshot, queue_order_time, workload_info

MAX_INT = (1 << 63) - 1


def _snap(objs: list[dict[str, Any]], version: str = V07) -> Snapshot:
    inp = inputs(objs, version)
    return Snapshot(inp.cluster_queues.values(), inp.flavors, [], inp.config, inp.cohorts)


def _queue(objs: list[dict[str, Any]], name: str, usage: dict[tuple[str, str], int],
           version: str = V07) -> CQState:
    st = _snap(objs, version).cqs[name]
    for fr, amount in usage.items():
        st.add_usage(fr, amount)
    return st


# ---- dominantResourceShare (v0.7) -----------------------------------------------------------


def test_a_queue_without_cohort_has_no_share() -> None:
    """``if c.Cohort == nil { return 0, "" }``, even while using more than nominal."""
    st = _queue([flavor("default"), cq("lone", [("default", {"cpu": "1"})])], "lone",
                {("default", "cpu"): 3000})
    assert st.dominant_resource_share() == (0, "")


def test_borrowing_one_milli_counts() -> None:
    """``b > 0``: 1m over nominal is borrowing; 1 * 1000 / 1000m lendable = 1, weight 1."""
    queues = [flavor("default"), cq("a", [("default", {"cpu": "0"})], cohort="c"),
              cq("b", [("default", {"cpu": "1"})], cohort="c")]
    assert _queue(queues, "a", {("default", "cpu"): 1}).dominant_resource_share() == (1, "cpu")


def test_a_ratio_rounding_to_zero_still_names_the_resource() -> None:
    """``drs`` starts at -1, so a ratio of 0 (1m of 2000m lendable) beats it: (0, "cpu")."""
    queues = [flavor("default"), cq("a", [("default", {"cpu": "0"})], cohort="c"),
              cq("b", [("default", {"cpu": "2"})], cohort="c")]
    assert _queue(queues, "a", {("default", "cpu"): 1}).dominant_resource_share() == (0, "cpu")


def test_borrowing_what_nobody_lends_gives_minus_one_thousand_over_weight() -> None:
    """A resource borrowed with ``lendable == 0`` is skipped, so ``drs`` stays -1 and the
    share is ``-1 * 1000 / weight`` (Go division): -1 for weight 1, -2 for weight 0.5,
    with no dominant resource."""
    for weight, expected in (("1", -1), ("500m", -2)):
        queues = [flavor("default"),
                  cq("a", [("default", {"cpu": "0"})], cohort="c", weight=weight),
                  cq("b", [("default", {"cpu": "0"})], cohort="c")]
        st = _queue(queues, "a", {("default", "cpu"): 1000})
        assert st.dominant_resource_share() == (expected, "")


def test_one_milli_lendable_divides() -> None:
    """``lr > 0``: a cohort lending 1m still gives a ratio, 2m * 1000 / 1m = 2000."""
    queues = [flavor("default"), cq("a", [("default", {"cpu": "0"})], cohort="c"),
              cq("b", [("default", {"cpu": "1m"})], cohort="c")]
    assert _queue(queues, "a", {("default", "cpu"): 2}).dominant_resource_share() == \
        (2000, "cpu")


def test_integer_ratio_then_small_weight() -> None:
    """Both divisions are integer divisions: 1000 * 1000 / 3000 = 333, then
    333 * 1000 / 1 (weight 1m) = 333000 (not 333333)."""
    queues = [flavor("default"), cq("a", [("default", {"cpu": "0"})], cohort="c", weight="1m"),
              cq("b", [("default", {"cpu": "3"})], cohort="c")]
    assert _queue(queues, "a", {("default", "cpu"): 1000}).dominant_resource_share() == \
        (333000, "cpu")


def test_borrowing_sums_over_flavors() -> None:
    """``borrowing[rName] += b`` over every flavor: 1 CPU over nominal in each of two
    flavors is 2000m borrowed of the 4000m the cohort can lend: ratio 500."""
    queues = [flavor("x"), flavor("y"),
              cq("a", [("x", {"cpu": "0"}), ("y", {"cpu": "0"})], cohort="c"),
              cq("b", [("x", {"cpu": "2"}), ("y", {"cpu": "2"})], cohort="c")]
    st = _queue(queues, "a", {("x", "cpu"): 1000, ("y", "cpu"): 1000})
    assert st.dominant_resource_share() == (500, "cpu")


def _two_resources(first: str, second: str) -> list[dict[str, Any]]:
    return [flavor("default"),
            cq("a", [("default", {first: "0", second: "0"})], cohort="c"),
            cq("b", [("default", {first: "4", second: "4"})], cohort="c")]


def test_highest_ratio_wins_and_a_tie_goes_to_the_first_name() -> None:
    """The largest ratio wins whatever the name; equal ratios keep the alphabetically
    first resource, whichever order the queue declares them in."""
    usage = {("default", "memory"): 2, ("default", "cpu"): 1000}
    # memory 2 of 4 bytes: ratio 500; cpu 1000m of 4000m: ratio 250 -> memory
    assert _queue(_two_resources("memory", "cpu"), "a", usage).dominant_resource_share() == \
        (500, "memory")
    tie = {("default", "memory"): 1, ("default", "cpu"): 1000}  # both 250
    assert _queue(_two_resources("memory", "cpu"), "a", tie).dominant_resource_share() == \
        (250, "cpu")
    assert _queue(_two_resources("cpu", "memory"), "a", tie).dominant_resource_share() == \
        (250, "cpu")


def test_a_request_without_a_resource_adds_nothing_to_it() -> None:
    """``DominantResourceShareWith``: ``wlReq[flavor][resource]`` is 0 for a resource the
    request lacks, so memory at exactly nominal stays not borrowed; cpu with the request
    1000m over nominal of 4000m lendable: 250."""
    st = _queue(_two_resources("cpu", "memory"), "a", {})
    assert st.dominant_resource_share({"default": {"cpu": 1000}}, 1) == (250, "cpu")
    assert st.dominant_resource_share({"default": {"cpu": 0}}, 1) == (0, "")


# ---- RequestableCohortQuota / UsedCohortQuota (v0.7, LendingLimit gate) ---------------------


def _lending_cohort() -> list[dict[str, Any]]:
    # a: nominal 10, lendingLimit 4 -> guaranteedQuota 6; b: nominal 5, lends all of it.
    return [config(fair=False, lending_limit=True), flavor("default"),
            cq("a", [("default", {"cpu": ("10", None, "4")})], cohort="c"),
            cq("b", [("default", {"cpu": "5"})], cohort="c")]


def test_requestable_cohort_quota_adds_the_queues_guaranteed_quota() -> None:
    """The cohort's requestable cpu is 4 + 5 = 9; ``a`` adds its guaranteed 6, ``b`` 0."""
    snap = _snap(_lending_cohort())
    assert snap.cqs["a"].requestable_cohort_quota("default", "cpu") == 15000
    assert snap.cqs["b"].requestable_cohort_quota("default", "cpu") == 9000


def test_used_cohort_quota_counts_back_the_guaranteed_usage() -> None:
    """``a`` using 8 CPUs puts 8 - 6 = 2 in the cohort; seen from ``a`` the cohort usage is
    2 + min(8, 6) = 8, from ``b`` (no guaranteed quota) 2. With 3 CPUs used, nothing goes
    to the cohort and ``a`` sees min(3, 6) = 3."""
    snap = _snap(_lending_cohort())
    snap.cqs["a"].add_usage(("default", "cpu"), 8000)
    assert snap.cqs["a"].used_cohort_quota("default", "cpu") == 8000
    assert snap.cqs["b"].used_cohort_quota("default", "cpu") == 2000
    small = _snap(_lending_cohort())
    small.cqs["a"].add_usage(("default", "cpu"), 3000)
    assert small.cqs["a"].used_cohort_quota("default", "cpu") == 3000
    assert small.cqs["b"].used_cohort_quota("default", "cpu") == 0




# ---- a flavor-resource a node never saw ------------------------------------------------------


def test_a_flavor_resource_nobody_defines_reads_as_zero() -> None:
    """Kueue's quota maps are Go maps: a flavor-resource a node has no entry for reads as
    0 quota and 0 usage. Fair sharing asks every queue of the cohort whether it borrows
    the preemptor's flavor-resources (``cqIsBorrowing`` -> ``BorrowingWith(fr, 0)``),
    which another queue need not define. So: no usage, no quota, nothing available,
    ``BorrowingWith(fr, 0)`` false and ``BorrowingWith(fr, 1m)`` true (0 + 1 > 0); v0.7's
    ``RequestableCohortQuota`` / ``UsedCohortQuota`` are 0 for a flavor the cohort lacks."""
    fr = ("other", "cpu")
    objs = [flavor("default"), flavor("other"),
            cq("a", [("default", {"cpu": "1"})], cohort="c"),
            cq("b", [("default", {"cpu": "1", "memory": ("1", "1")})], cohort="c"),
            cq("lone", [("default", {"cpu": "1"})])]
    for version in (V07, CURRENT):
        snap = _snap(objs, version)
        for st in (snap.cqs["a"], snap.cqs["lone"]):
            assert st.used(*fr) == 0
            assert st.available(fr) == 0
            assert st.potential_available(fr) == 0
            assert not st.borrowing_with(fr, 0)
            assert st.borrowing_with(fr, 1)
        root = snap.cohorts["c"]
        assert (root.available(fr), root.potential_available(fr)) == (0, 0)
        assert snap.cqs["a"].requestable_cohort_quota(*fr) == 0
        assert snap.cqs["a"].used_cohort_quota(*fr) == 0
        # memory only "b" defines: the others see the cohort's 1 (b lends all of it)
        assert snap.cqs["a"].available(("default", "memory")) == 1


# ---- GetQueueOrderTimestamp without a creationTimestamp --------------------------------------


def test_a_workload_without_creation_time_is_not_newer_than_one_made_at_the_epoch() -> None:
    """``GetQueueOrderTimestamp`` returns ``&w.CreationTimestamp``: unset, Go's zero time
    (year 1), which is never after another workload's creation time. Preemption asks
    "is the candidate newer than the preemptor" (``preemptor.Before(candidate)``): a
    preemptor created at 1970-01-01T00:00:00Z is not before a candidate with no
    creation time, nor is such a workload before another like it."""
    objs = [wl("epoch", created=0.0), wl("unset")]
    del objs[1]["metadata"]["creationTimestamp"]
    loaded = inputs(objs)
    epoch, unset = (queue_order_time(workload_info(loaded.workloads[f"default/{n}"]), True)
                    for n in ("epoch", "unset"))
    assert not epoch < unset
    assert not unset < unset


# ---- available with both limits ---------------------------------------------------------------


def test_available_caps_what_comes_from_the_parent_by_what_the_queue_stored_there() -> None:
    """``available`` (``resource_node.go``) with a borrowing limit: what the parent may give
    is ``min(storedInParent - usedInParent + borrowingLimit, available(parent))`` with
    ``storedInParent = SubtreeQuota - localQuota`` and ``usedInParent = max(0, Usage -
    localQuota)``, plus ``LocalAvailable``.

    ``a``: nominal 10, lendingLimit 4 (localQuota 6), borrowingLimit 2, using 3 (all
    local); ``b`` lends 10. The cohort holds 4 + 10 = 14, none of it used. From the
    parent: min(4 - 0 + 2, 14) = 6; local: 6 - 3 = 3; so 9. Using 8 instead (2 stored
    in the parent): min(4 - 2 + 2, 12) = 4, local 0: 4."""
    objs = [flavor("default"),
            cq("a", [("default", {"cpu": ("10", "2", "4")})], cohort="c"),
            cq("b", [("default", {"cpu": "10"})], cohort="c")]
    fr = ("default", "cpu")
    assert _queue(objs, "a", {fr: 3000}, CURRENT).available(fr) == 9000
    assert _queue(objs, "a", {fr: 8000}, CURRENT).available(fr) == 4000


def test_one_milli_of_undeclared_usage_is_above_nominal() -> None:
    """``IsWithinNominalInResources``: ``SubtreeQuota[fr] < Usage[fr]`` with Go's zero for
    a flavor-resource the queue does not declare; current Kueue counts a workload's
    usage there too, so 1m used of an undeclared flavor is over its (zero) nominal."""
    objs = [flavor("default"), flavor("other"), cq("a", [("default", {"cpu": "1"})])]
    st = _queue(objs, "a", {("other", "cpu"): 1}, CURRENT)
    assert not st.within_nominal({("other", "cpu")})
    assert st.within_nominal({("default", "cpu")})


# ---- a Cohort object met first as another's parent -------------------------------------------


def _cohort(name: str, parent: str = "", cpu: tuple[str, str] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"parentName": parent} if parent else {}
    if cpu is not None:
        spec["resourceGroups"] = [{"coveredResources": ["cpu"], "flavors": [
            {"name": "default", "resources": [
                {"name": "cpu", "nominalQuota": cpu[0], "lendingLimit": cpu[1]}]}]}]
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort",
            "metadata": {"name": name}, "spec": spec}


def test_a_parent_cohorts_lending_limit_counts_whatever_the_object_order() -> None:
    """``accumulateFromChild``: a cohort passes up its subtree quota minus its
    ``localQuota`` (``max(0, SubtreeQuota - lendingLimit)``). ``mid`` has 10 CPUs and
    lends at most 4, so ``root`` holds 4 and a queue of ``root`` with no quota of its own
    has 4 available -- also when ``leaf`` (a child of ``mid``) comes first in the input."""
    objs = [flavor("default"), _cohort("leaf", "mid"), _cohort("mid", "root", ("10", "4")),
            _cohort("root"), cq("q", [("default", {"cpu": "0"})], cohort="leaf"),
            cq("other", [("default", {"cpu": "0"})], cohort="root")]
    snap = _snap(objs, CURRENT)
    assert snap.cohorts["root"].subtree[("default", "cpu")] == 4000
    assert snap.cqs["other"].available(("default", "cpu")) == 4000
    assert snap.cqs["q"].available(("default", "cpu")) == 10000


# ---- IsBorrowing / guaranteedQuota (v0.7) -----------------------------------------------------


def test_is_borrowing_and_guaranteed_quota() -> None:
    """v0.7 ``ClusterQueue.IsBorrowing``: false without a cohort; else true when some
    resource's usage is above its nominal quota (at nominal is not borrowing).
    ``guaranteedQuota``: nominal minus lendingLimit with the LendingLimit gate, else 0."""
    fr = ("default", "cpu")
    assert not _queue([flavor("default"), cq("lone", [("default", {"cpu": "1"})])], "lone",
                      {fr: 2000}).is_borrowing()
    pair = [flavor("default"),
            cq("a", [("default", {"memory": "1", "cpu": "1"})], cohort="c"),
            cq("b", [("default", {"memory": "1", "cpu": "1"})], cohort="c")]
    assert not _queue(pair, "a", {fr: 1000}).is_borrowing()
    assert _queue(pair, "a", {fr: 1001}).is_borrowing()
    snap = _snap(_lending_cohort())
    assert snap.cqs["a"].guaranteed_quota("default", "cpu") == 6000
    assert snap.cqs["b"].guaranteed_quota("default", "cpu") == 0
    gate_off = _snap(_lending_cohort()[1:])
    assert gate_off.cqs["a"].guaranteed_quota("default", "cpu") == 0


def test_usage_of_an_undeclared_flavor_starts_from_zero_up_the_tree() -> None:
    """``addUsage``: ``Usage[fr] = Usage[fr] + val`` from Go's zero for a new entry; a
    queue with no local quota there passes it all to its cohort. Current Kueue charges a
    workload's usage of a flavor its queue does not declare, so 1 CPU of ``other`` is
    1 CPU used by the queue and by its cohort."""
    objs = [flavor("default"), flavor("other"),
            cq("a", [("default", {"cpu": "1"})], cohort="c"),
            cq("b", [("default", {"cpu": "1"})], cohort="c"),
            wl("w", admitted="a", flavors={"cpu": "other"})]
    inp = inputs(objs, CURRENT)
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, inp.workloads.values(),
                    inp.config, inp.cohorts)
    assert snap.cqs["a"].used("other", "cpu") == 1000
    assert snap.cohorts["c"].usage[("other", "cpu")] == 1000


# ---- workload.Info's pod counts ---------------------------------------------------------------


def _info(body: dict[str, Any], reclaimable: int | None = None) -> tuple[int, dict[str, int]]:
    if reclaimable is not None:
        body.setdefault("status", {})["reclaimablePods"] = [{"name": "main",
                                                             "count": reclaimable}]
    (ps,) = workload_info(inputs([body], CURRENT).workloads["default/w"], "q").total_requests
    return ps.count, ps.requests


def test_more_reclaimable_pods_than_pods_leave_nothing() -> None:
    """``podSetsCountsAfterReclaim``: ``count -= min(reclaimable, count)`` (a reclaimable
    count may transiently exceed the pod count): 2 pods with 3 reclaimable are 0 pods
    requesting nothing."""
    body = wl("w", pod_sets=[{"name": "main", "count": 2, "template": {"spec": {
        "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}])
    assert _info(body, 3) == (0, {"cpu": 0})


def test_an_admission_without_count_takes_the_pod_sets_count() -> None:
    """``totalRequestsFromAdmission``: ``Count: ptr.Deref(psa.Count, totalCounts[name])``.
    4 pods admitted with 4 CPUs of resourceUsage and no count: 4 pods; with one pod
    reclaimable the usage is scaled to 4000m / 4 * 3 = 3000m on 3 pods."""
    def admitted() -> dict[str, Any]:
        body = wl("w", pod_sets=[{"name": "main", "count": 4, "template": {"spec": {
            "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}],
            admitted="q")
        psa = body["status"]["admission"]["podSetAssignments"][0]
        del psa["count"]
        psa["resourceUsage"] = {"cpu": "4"}
        return body
    assert _info(admitted()) == (4, {"cpu": 4000})
    assert _info(admitted(), 1) == (3, {"cpu": 3000})


# ---- inactive ClusterQueues and v0.7's cohorts ------------------------------------------------


def test_each_inactive_queue_is_set_aside_with_its_condition_reason() -> None:
    """A ClusterQueue is inactive on its own (``clusterQueue.inactiveReason``: reason
    ``FlavorNotFound`` with the missing flavors listed, or ``Stopped`` for a stopPolicy
    other than None); the queues after it in the input stay active. The pending
    workload's message names the queue as inactive (``ClusterQueue %s is inactive``);
    the explanation's trace adds that reason."""
    stopped = cq("s", [("default", {"cpu": "4"})])
    stopped["spec"]["stopPolicy"] = "Hold"
    objs = [flavor("default"), cq("m", [("gone", {"cpu": "4"})], [("lost", {"memory": "4"})]),
            stopped, cq("ok", [("default", {"cpu": "4"})]),
            wl("in-m", {"cpu": "1"}, queue="m"), wl("in-s", {"cpu": "1"}, queue="s"),
            wl("in-ok", {"cpu": "1"}, queue="ok")]
    for version in (V07, CURRENT):
        m, s = run(objs, "in-m", version), run(objs, "in-s", version)
        assert (m.message, s.message) == ("ClusterQueue m is inactive",
                                          "ClusterQueue s is inactive")
        assert "ClusterQueue m is inactive: FlavorNotFound (gone, lost)" in m.trace.lines
        assert "ClusterQueue s is inactive: Stopped" in s.trace.lines
        assert run(objs, "in-ok", version).result == "admit"


def test_v07_has_no_cohort_objects() -> None:
    """Kueue v0.7 has no Cohort API: a cohort is only the name its ClusterQueues share,
    holding what they lend. A Cohort object handed to a v0.7 snapshot adds no quota."""
    queues = [flavor("default"), cq("a", [("default", {"cpu": "1"})], cohort="c"),
              cq("b", [("default", {"cpu": "1"})], cohort="c")]
    with_object = inputs([*queues, cohort_object("c", cpu="10")], CURRENT).cohorts
    v07 = inputs(queues, V07)
    snap = Snapshot(v07.cluster_queues.values(), v07.flavors, [], v07.config, with_object)
    assert snap.cohorts["c"].subtree[("default", "cpu")] == 2000
    assert snap.cqs["a"].available(("default", "cpu")) == 2000


def test_every_workload_holding_quota_in_an_active_queue_is_charged() -> None:
    """The cache charges each workload with a quota reservation to its ClusterQueue
    (``addOrUpdateWorkload``) and skips the others -- pending ones, and those whose queue
    is missing or inactive -- one by one, whatever comes before them in the input."""
    objs = [flavor("default"), cq("q", [("default", {"cpu": "8"})]),
            cq("m", [("gone", {"cpu": "4"})]),
            wl("pending", {"cpu": "1"}, queue="q"),
            wl("orphan", {"cpu": "2"}, admitted="nowhere"),
            wl("inactive", {"cpu": "2"}, admitted="m", flavors={"cpu": "gone"}),
            wl("held", {"cpu": "3"}, admitted="q")]
    inp = inputs(objs, CURRENT)
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, inp.workloads.values(),
                    inp.config, inp.cohorts)
    assert snap.cqs["q"].used("default", "cpu") == 3000
    assert [w.key for w in snap.all_workloads()] == ["default/held"]


def test_only_the_cohorts_on_or_under_a_cycle_are_cyclic() -> None:
    """``hierarchy.HasCycle`` follows parents from a cohort: ``child`` -> ``root`` (a Cohort
    object without parent) and ``orphan`` -> ``missing`` (no object) end, so their queues
    admit; ``x`` <-> ``y`` loop, and ``below`` leads into that loop."""
    objs = [flavor("default"), _cohort("child", "root"), _cohort("root"),
            _cohort("orphan", "missing"), _cohort("x", "y"), _cohort("y", "x"),
            _cohort("below", "x")]
    queues = {"in-child": "child", "in-orphan": "orphan", "in-x": "x", "in-below": "below"}
    for name, parent in queues.items():
        objs += [cq(f"q-{name}", [("default", {"cpu": "4"})], cohort=parent),
                 wl(name, {"cpu": "1"}, queue=f"q-{name}")]
    assert run(objs, "in-child", CURRENT).result == "admit"
    assert run(objs, "in-orphan", CURRENT).result == "admit"
    for name in ("in-x", "in-below"):
        d = run(objs, name, CURRENT)
        assert d.message == f"ClusterQueue q-{name} is inactive"
        assert f"ClusterQueue q-{name} is inactive: cohort has a cycle" in d.trace.lines


def test_undeclared_usage_in_a_queue_with_a_lending_limit() -> None:
    """As above, for a queue that keeps quota local (a lendingLimit): ``LocalAvailable``
    of a flavor-resource it does not declare is ``max(0, 0 - 0)`` before the first usage
    there, so all of it goes to the cohort."""
    objs = [flavor("default"), flavor("other"),
            cq("a", [("default", {"cpu": ("2", None, "1")})], cohort="c"),
            cq("b", [("default", {"cpu": "1"})], cohort="c"),
            wl("w", admitted="a", flavors={"cpu": "other"})]
    inp = inputs(objs, CURRENT)
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, inp.workloads.values(),
                    inp.config, inp.cohorts)
    assert snap.cqs["a"].used("other", "cpu") == 1000
    assert snap.cohorts["c"].usage[("other", "cpu")] == 1000
