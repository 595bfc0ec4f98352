"""Choosing the node to preempt on: upstream ``pickOneNodeForPreemption``.

The order (seed 004 and ``pkg/scheduler/framework/preemption``): fewest PDB violations,
lowest highest-victim priority, smallest sum of victim priorities (each offset by 2^31),
fewest victims, latest earliest-start-time among the highest-priority victims; then
upstream takes the first of a map iteration (random) — here the first node by name
(``Snapshot.name_rank``, the one rank every "first by name" tie-break reads).

:func:`pick_one_node` is the only implementation of that order. It works on per-candidate
metric arrays, so the exact path (a list of :class:`Candidate`) and the incremental
cache (metrics kept per node) share it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kubepreempt.api.objects import Pod
from kubepreempt.scheduler.preemption.victims import start_time

INT32_OFFSET = 2**31
TIE_BREAKS = (
    "fewest PDB violations",
    "lowest highest-victim priority",
    "smallest sum of victim priorities",
    "fewest victims",
    "latest start time of the highest-priority victims",
    "first node by name",
)
#: What decided when there was nothing to break a tie between.
ONLY_CANDIDATE = "only candidate"


@dataclass(slots=True)
class Candidate:
    """A node where preemption makes room: its victims (most important first)."""

    node: str
    index: int
    victims: list[Pod]
    pdb_violations: int

    @property
    def highest_priority(self) -> int:
        """Priority of the most important victim."""
        return self.victims[0].priority

    @property
    def priority_sum(self) -> int:
        """Sum of victim priorities, each offset by 2^31 as upstream."""
        return sum(p.priority + INT32_OFFSET for p in self.victims)

    def earliest_start(self, now: float) -> float:
        """Earliest start time among the highest-priority victims (no start time = now)."""
        top = max(p.priority for p in self.victims)
        return min(start_time(p, now) for p in self.victims if p.priority == top)


@dataclass(slots=True)
class CandidateMetrics:
    """The node-pick criteria of m candidates, one array each (aligned)."""

    violations: np.ndarray
    highest: np.ndarray
    priority_sum: np.ndarray
    count: np.ndarray
    earliest: np.ndarray  # earliest start among the highest-priority victims
    name_rank: np.ndarray  # the nodes' ``Snapshot.name_rank`` (the final tie-break)

    @staticmethod
    def of(candidates: list[Candidate], now: float, name_rank: np.ndarray) -> CandidateMetrics:
        """Metrics of explicit candidates; ``name_rank``: the snapshot's."""
        return CandidateMetrics(
            np.array([c.pdb_violations for c in candidates], np.int64),
            np.array([c.highest_priority for c in candidates], np.int64),
            np.array([c.priority_sum for c in candidates], np.int64),
            np.array([len(c.victims) for c in candidates], np.int64),
            np.array([c.earliest_start(now) for c in candidates], np.float64),
            name_rank[np.array([c.index for c in candidates], np.int64)])


def pick_one_node(metrics: CandidateMetrics) -> tuple[int, str]:
    """Upstream ``pickOneNodeForPreemption``: the winning row and the deciding step."""
    rows = np.arange(metrics.violations.size)
    if rows.size == 1:
        return 0, ONLY_CANDIDATE
    steps = ((metrics.violations, False), (metrics.highest, False),
             (metrics.priority_sum, False), (metrics.count, False), (metrics.earliest, True))
    for step, (values, latest_wins) in zip(TIE_BREAKS, steps, strict=False):
        v = values[rows]
        best = v.max() if latest_wins else v.min()
        rows = rows[v == best]
        if rows.size == 1:
            return int(rows[0]), step
    return int(rows[int(np.argmin(metrics.name_rank[rows]))]), TIE_BREAKS[-1]


def pick_candidate(candidates: list[Candidate], now: float,
                   name_rank: np.ndarray) -> tuple[Candidate, str]:
    """The winning candidate among ``candidates`` and the deciding step (``name_rank``:
    the snapshot's, ``Candidate.index`` indexes it)."""
    row, step = pick_one_node(CandidateMetrics.of(candidates, now, name_rank))
    return candidates[row], step
