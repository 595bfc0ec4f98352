"""DefaultPreemption (upstream ``pkg/scheduler/framework/preemption`` and the
``defaultpreemption`` plugin): the evaluator, victim selection, the node pick, and the
vectorised paths that make them fast.

- ``evaluator``: eligibility, candidates, dry run, the result (``Evaluator.preempt``);
- ``victims``: ``select_victims_on_node``, importance order, PDB split;
- ``pick``: ``pick_one_node`` (the node-pick order) and ``Candidate``;
- ``fast``: ``PreemptionIndex``, ``PreemptionCache``, ``resource_prune``, ``reprieve``.
"""

from kubepreempt.scheduler.preemption.evaluator import (
    MSG_NEVER,
    MSG_TERMINATING,
    NOT_HELPFUL,
    Evaluator,
    PreemptionResult,
    Preemptor,
    nodes_where_preemption_might_help,
    pod_eligible,
    prepare_candidate,
)
from kubepreempt.scheduler.preemption.pick import (
    TIE_BREAKS,
    Candidate,
    CandidateMetrics,
    pick_candidate,
    pick_one_node,
)
from kubepreempt.scheduler.preemption.victims import (
    NO_VICTIMS,
    importance_order,
    more_important,
    select_victims_on_node,
    split_by_pdb,
    start_time,
)

__all__ = [
    "MSG_NEVER", "MSG_TERMINATING", "NOT_HELPFUL", "NO_VICTIMS", "TIE_BREAKS", "Candidate",
    "CandidateMetrics", "Evaluator", "PreemptionResult", "Preemptor", "importance_order",
    "more_important", "nodes_where_preemption_might_help", "pick_candidate",
    "pick_one_node", "pod_eligible", "prepare_candidate", "select_victims_on_node",
    "split_by_pdb", "start_time",
]
