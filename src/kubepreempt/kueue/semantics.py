"""Which Kueue release the engine follows: one engine, a few named switches.

Kueue v0.7.0 (the seed's release) and Kueue 0.20 (the default, ``current``) differ in a
handful of rules. The
engine reads these switches instead of keeping two copies of an algorithm; each switch
names the rule it changes and the release it arrived in. The one exception is v0.7's
preemption search, too different from current Kueue's classic and fair-sharing plans for
switches: ``classified_preemption`` / ``fair_sharing_tree`` off select it whole
(:mod:`kubepreempt.kueue.preemption.v07`).
"""

from __future__ import annotations

from dataclasses import dataclass

from kubepreempt.api.errors import InputError

V0_7 = "v0.7"
V0_20 = "0.20"
# The default release; ``current`` and ``latest`` are kept as its aliases.
CURRENT = V0_20
ALIASES = {"": V0_20, "current": V0_20, "latest": V0_20, "v0.20": V0_20, "0.7": V0_7}
# The upstream source the 0.20 switches follow (see docs/CONFORMANCE.md): kubernetes-sigs/kueue
# main at ff69552e (2026-08-22, tag v0.20.0-devel, after v0.19.2), read release by release
# from CHANGELOG-0.15 to 0.19 and the v0.20 development history.
CURRENT_RELEASE = "v0.20 (main ff69552e, after v0.19.2; v1beta2)"


@dataclass(frozen=True, slots=True)
class Semantics:
    """The rules that differ between the Kueue releases kubepreempt models."""

    version: str
    # GetQueueOrderTimestamp: an AdmissionCheck eviction also resets the queue-order time
    # (v0.9+); v0.7 uses the eviction time only for PodsReadyTimeout evictions.
    admission_check_eviction_orders: bool
    # The LendingLimit feature gate's default (alpha/off in v0.7, beta/on since v0.9).
    lending_limit_default: bool
    # Cohort objects with parentName, their own quota and limits, and cycle detection
    # (v0.9+); v0.7 cohorts are only names on ClusterQueues.
    hierarchical_cohorts: bool
    # kueue.x-k8s.io versions read (v1beta2 since v0.15; older objects are converted).
    api_versions: tuple[str, ...]
    # The version the release serves natively; objects in another one of
    # ``api_versions`` are converted with a warning (0.20 no longer serves v1beta1,
    # #14558; v1alpha1 Cohorts went in v0.13).
    native_api_version: str
    # A ClusterQueue without a cohort may not set borrowing/lending limits (webhook);
    # kept off for v0.7 so its existing inputs load as before.
    validate_limits: bool
    # v1beta2's priorityClassRef: a v1beta1 priorityClassName without a
    # priorityClassSource converts to no class (v0.7 looked the name up).
    priority_class_needs_source: bool
    # Quota checks use the snapshot's available/potential capacity walking the cohort
    # tree (``Available``, ``PotentialAvailable``, ``FindHeightOfLowestSubtreeThatFits``);
    # v0.7 compared usage with nominal + borrowingLimit and the flat cohort's total.
    available_quota: bool
    # A flavor is matched against the pod set's node selector/affinity restricted to its
    # own label keys; v0.7 used the union of the resource group's flavors' keys.
    flavor_own_label_keys: bool
    # Classic preemption classifies candidates (own queue, hierarchical reclaim, reclaim
    # with/without borrowing) and makes up to two greedy passes; v0.7 made one pass per
    # heuristic and switched borrowing off mid-way.
    classified_preemption: bool
    # Preempted condition: detailed reasons and "... due to ...; preemptor path: ..."
    # messages (v0.7: InClusterQueue/InCohort, "... in the ClusterQueue|cohort").
    detailed_preempted_condition: bool
    # Fair sharing always runs its own search: the cohort tree is walked for the highest
    # dominant resource share (float, weight 0 infinite only while borrowing), the
    # preemptor's share includes the incoming workload, borrowWithinCohort is ignored.
    # v0.7 fell back to classic when every candidate was in the preemptor's queue.
    fair_sharing_tree: bool
    # A ClusterQueue's usage counts every flavor-resource its workloads hold, declared
    # in its quota or not (``addUsage``); v0.7 counted only the declared ones.
    usage_of_undeclared: bool
    # Flavor assignment asks the preemption oracle per flavor (a flavor whose preemption
    # finds no targets loses to later flavors under whenCanPreempt: TryNextFlavor).
    flavor_preemption_oracle: bool
    # A zero request for a resource no resource group covers needs no flavor
    # (``assignFlavors``, issue #8079, #8863); v0.7 failed it as "unavailable".
    skip_zero_undeclared: bool
    # FairSharingPrioritizeNonBorrowing (beta, on since v0.17: #9484, made per flavor and
    # per cohort level by #10149): the fair-sharing tournament prefers, at each cohort
    # level, the entry whose subtree does not borrow on a flavor-resource the entry
    # requests, before comparing dominant resource shares (``entryComparer.less``).
    fair_sharing_prioritize_non_borrowing: bool
    # A Preempt entry without targets in a ClusterQueue whose reclaimWithinCohort is not
    # Any reserves its quota for the rest of the cycle (up to nominal, or up to the
    # borrowing limit when it borrows), so later entries of the cohort do not take it
    # (``reserveCapacityForUnreclaimablePreempt``, #4813). v0.7 reserved through its own
    # per-cohort cycle usage, which is not modelled (off).
    reserve_unreclaimable_preempt: bool
    # A ResourceFlavor's own spec.tolerations count with the pod set's when its taints are
    # checked (``findFlavorForPodSetResource``, #3722, v0.10); v0.7 checked the pod set's
    # tolerations only.
    flavor_tolerations: bool
    # flavorFungibility.preference (v0.15, #7316): PreemptionOverBorrowing ranks flavors by
    # borrowing level before preemption mode (``isPreferred``); v0.7 has no such field.
    fungibility_preference: bool
    # An admitted pod set's usage is rescaled to its count after reclaimablePods only when
    # that count is lower (``totalRequestsFromAdmission``, #3118, v0.10): a higher count
    # is a partial admission and keeps the admitted usage. v0.7 rescaled whenever the
    # counts differed, charging a partially admitted workload for its whole spec.
    partial_admission_keeps_usage: bool
    # A ClusterQueue's heap breaks a tie of priority and queue-order time by the
    # Workloads' UIDs (``baseCompareFunc``, #9101, v0.19); v0.7's ``less`` had no tie-break
    # (kubepreempt keeps the namespace/name order there).
    uid_queue_tie_break: bool


SEMANTICS: dict[str, Semantics] = {
    V0_7: Semantics(V0_7, admission_check_eviction_orders=False, lending_limit_default=False,
                    hierarchical_cohorts=False, api_versions=("v1beta1",),
                    native_api_version="v1beta1",
                    validate_limits=False, priority_class_needs_source=False,
                    available_quota=False, flavor_own_label_keys=False,
                    classified_preemption=False, detailed_preempted_condition=False,
                    fair_sharing_tree=False, usage_of_undeclared=False,
                    flavor_preemption_oracle=False, skip_zero_undeclared=False,
                    fair_sharing_prioritize_non_borrowing=False,
                    reserve_unreclaimable_preempt=False, flavor_tolerations=False,
                    fungibility_preference=False, partial_admission_keeps_usage=False,
                    uid_queue_tie_break=False),
    CURRENT: Semantics(CURRENT, admission_check_eviction_orders=True,
                       lending_limit_default=True, hierarchical_cohorts=True,
                       api_versions=("v1beta1", "v1beta2", "v1alpha1"),
                       native_api_version="v1beta2",
                       validate_limits=True, priority_class_needs_source=True,
                       available_quota=True, flavor_own_label_keys=True,
                       classified_preemption=True, detailed_preempted_condition=True,
                       fair_sharing_tree=True, usage_of_undeclared=True,
                       flavor_preemption_oracle=True, skip_zero_undeclared=True,
                       fair_sharing_prioritize_non_borrowing=True,
                       reserve_unreclaimable_preempt=True, flavor_tolerations=True,
                       fungibility_preference=True, partial_admission_keeps_usage=True,
                       uid_queue_tie_break=True),
}


def semantics_for(version: str) -> Semantics:
    """The switches for ``--kueue-version`` (``0.20``, the default, alias ``current``; or
    ``v0.7``)."""
    key = ALIASES.get(version, version)
    if key not in SEMANTICS:
        raise InputError(f"--kueue-version {version!r} is not one of {sorted(SEMANTICS)} "
                         "(current is 0.20)")
    return SEMANTICS[key]
