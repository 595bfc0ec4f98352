"""The status conditions Kueue sets on a preempted workload.

``IssuePreemptions`` sets ``Evicted`` (reason ``Preempted``, with observedGeneration) and
``Preempted``. Kueue v0.7.0: Preempted reason ``InClusterQueue`` or ``InCohort``, message
``Preempted to accommodate a workload (UID: <uid>) in the ClusterQueue|cohort``. Current
Kueue (``preemptionMessage``): the detailed reason (``InClusterQueue``,
``InCohortReclamation``, ``InCohortReclaimWhileBorrowing``, ``InCohortFairSharing``) and
``Preempted to accommodate a workload (UID: <uid>, JobUID: <job uid>) due to <reason in
words>; preemptor path: /<root>/.../<queue>; preemptee path: ...``. Conditions are merged
as ``apimeta.SetStatusCondition`` does: an existing condition of the same type keeps its
lastTransitionTime unless its status changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from kubepreempt.kueue.objects import Workload


def rfc3339(ts: float) -> str:
    """Seconds since the epoch -> ``2024-05-31T18:42:33Z``."""
    return datetime.fromtimestamp(int(ts), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def preemption_message(preemptor_uid: str, same_queue: bool) -> str:
    """v0.7's message: the origin is the ClusterQueue or the cohort."""
    origin = "ClusterQueue" if same_queue else "cohort"
    return f"Preempted to accommodate a workload (UID: {preemptor_uid}) in the {origin}"


# HumanReadablePreemptionReasons (current Kueue); a reason missing from it reads as the
# empty string, as a Go map lookup does.
HUMAN_REASONS = {
    "InClusterQueue": "prioritization in the ClusterQueue",
    "InCohortReclamation": "reclamation within the cohort",
    "InCohortFairSharing": "Fair Sharing within the cohort",
    "InCohortReclaimWhileBorrowing": "reclamation within the cohort while borrowing",
    "": "UNKNOWN",
}


def current_preemption_message(preemptor_uid: str, job_uid: str, reason: str,
                               preemptor_path: str, preemptee_path: str) -> str:
    """Current ``preemptionMessage`` (empty parts read ``UNKNOWN``)."""
    return (f"Preempted to accommodate a workload (UID: {preemptor_uid or 'UNKNOWN'}, "
            f"JobUID: {job_uid or 'UNKNOWN'}) due to {HUMAN_REASONS.get(reason, '')}; "
            f"preemptor path: {preemptor_path or 'UNKNOWN'}; "
            f"preemptee path: {preemptee_path or 'UNKNOWN'}")


def set_condition(conditions: list[dict[str, Any]], new: dict[str, Any]) -> None:
    """``apimeta.SetStatusCondition``."""
    for cur in conditions:
        if cur.get("type") == new["type"]:
            if cur.get("status") != new["status"]:
                cur["status"] = new["status"]
                cur["lastTransitionTime"] = new["lastTransitionTime"]
            cur["reason"] = new["reason"]
            cur["message"] = new["message"]
            if "observedGeneration" in new:
                cur["observedGeneration"] = new["observedGeneration"]
            else:
                cur.pop("observedGeneration", None)
            return
    conditions.append(new)


def victim_conditions(victim: Workload, preemptor_uid: str, same_queue: bool,
                      now: float, detailed: tuple[str, str] | None = None
                      ) -> list[dict[str, Any]]:
    """The victim's ``status.conditions`` after Kueue marks it preempted; ``detailed`` is
    current Kueue's (reason, message), else v0.7's are used."""
    conds: list[dict[str, Any]] = [dict(c) for c in victim.raw_conditions
                                   if isinstance(c, Mapping)]
    message = preemption_message(preemptor_uid, same_queue) if detailed is None \
        else detailed[1]
    reason = ("InClusterQueue" if same_queue else "InCohort") if detailed is None \
        else detailed[0]
    when = rfc3339(now)
    evicted: dict[str, Any] = {"type": "Evicted", "status": "True", "lastTransitionTime": when,
                               "reason": "Preempted", "message": message}
    if victim.generation:  # omitempty: Go does not print a zero observedGeneration
        evicted["observedGeneration"] = victim.generation
    set_condition(conds, evicted)
    set_condition(conds, {"type": "Preempted", "status": "True", "lastTransitionTime": when,
                          "reason": reason, "message": message})
    return [dict(sorted(c.items())) for c in conds]  # kubectl prints keys sorted


def preempted_conditions(victim: Workload, preemptor_uid: str, preemptor_job_uid: str,
                         reason: str, same_queue: bool, now: float,
                         paths: tuple[str, str] | None) -> list[dict[str, Any]]:
    """``IssuePreemptions``' conditions on one victim preempted for ``reason``: current
    Kueue's detailed reason and message when ``paths`` (the preemptor's and the victim's
    ClusterQueue paths, ``/root/.../queue``) are given, else v0.7's."""
    detailed = None
    if paths is not None:
        detailed = (reason, current_preemption_message(preemptor_uid, preemptor_job_uid,
                                                       reason, *paths))
    return victim_conditions(victim, preemptor_uid, same_queue, now, detailed)
