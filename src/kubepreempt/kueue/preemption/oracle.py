"""Current Kueue's preemption oracle for flavor assignment (``preemption_oracle.go``).

When a flavor would need preemption, flavor assignment asks whether preemption in that
flavor-resource alone would find targets (``SimulatePreemption``): no targets makes the
flavor ``NoCandidates`` (it loses to any flavor with targets, and the search goes on);
targets in the preemptor's own queue make it ``Preempt``, only in other queues
``Reclaim``. The borrowing level is the one left after the targets are gone.
"""

from __future__ import annotations

from kubepreempt.kueue.flavors import G_NO_CANDIDATES, G_PREEMPT, G_RECLAIM, Granular, Oracle
from kubepreempt.kueue.preemption.common import Target, Trace
from kubepreempt.kueue.preemption.targets import targets_for
from kubepreempt.kueue.quota import FR, Snapshot, WorkloadInfo, lowest_subtree_that_fits


def preemption_oracle(wl: WorkloadInfo, snap: Snapshot, now: float,
                      memo: dict[tuple[FR, int], list[Target]] | None = None) -> Oracle:
    """The oracle for ``wl`` in its ClusterQueue of ``snap``; ``memo`` (optional) collects
    the targets found per (flavor-resource, quantity), for callers that would otherwise
    ask ``targets_for`` the same question again on the same snapshot."""
    st = snap.cqs[wl.cluster_queue]

    def simulate(fr: FR, quantity: int) -> Granular:
        req = {fr[0]: {fr[1]: quantity}}
        targets = targets_for(wl, req, {fr}, snap, now, Trace(enabled=False))
        if memo is not None:
            memo[(fr, quantity)] = targets
        if not targets:
            return G_NO_CANDIDATES, lowest_subtree_that_fits(st, fr, quantity)[0]
        for t in targets:
            snap.remove_workload(t.info)
        level = lowest_subtree_that_fits(st, fr, quantity)[0]
        for t in targets:
            snap.add_workload(t.info)
        if any(t.info.cluster_queue == st.name for t in targets):
            return G_PREEMPT, level
        return G_RECLAIM, level

    return simulate
