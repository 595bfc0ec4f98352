"""Scoring: the weighted plugin scores of the feasible nodes and the host pick.

Mirrors ``prioritizeNodes`` and ``selectHost`` (``pkg/scheduler/schedule_one.go``): every
score plugin relevant for the pod scores the feasible nodes (normalised 0..100), each
times its weight; the highest total wins. Upstream breaks ties between equal totals at
random; here the node whose name sorts first wins (``Snapshot.name_rank``, which holds
whatever order the nodes joined in).
"""

from __future__ import annotations

import numpy as np

from kubepreempt.scheduler.framework import CycleState, ScorePlugin


def score(scorers: list[ScorePlugin], state: CycleState,
          feasible: np.ndarray) -> dict[str, np.ndarray]:
    """Weighted, normalised score per plugin over ``feasible`` nodes."""
    out: dict[str, np.ndarray] = {}
    for plugin in scorers:
        hooks = plugin.hooks
        if "score_relevant" in hooks and not plugin.score_relevant(state):
            continue
        if "pre_score" in hooks:
            plugin.pre_score(state, feasible)
        out[plugin.name] = plugin.score(state, feasible) * plugin.weight
    return out


def select_host(scorers: list[ScorePlugin], state: CycleState,
                feasible: np.ndarray) -> tuple[int, dict[str, np.ndarray]]:
    """Highest total score; ties to the first node by name. One feasible node: no scoring
    (upstream ``schedulePod`` returns it directly)."""
    if feasible.size == 1:
        return int(feasible[0]), {}
    scores = score(scorers, state, feasible)
    total = np.zeros(feasible.size, np.int64)
    for part in scores.values():
        total += part
    return int(feasible[state.cluster.best_first_by_name(total, feasible)]), scores
