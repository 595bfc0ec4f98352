"""percentageOfNodesToScore: how many feasible nodes a cycle looks for, and where it starts.

Upstream ``findNodesThatPassFilters`` (``pkg/scheduler/schedule_one.go``) stops filtering
once ``numFeasibleNodesToFind`` nodes passed, checking nodes from ``nextStartNodeIndex``
round the node list, and then moves that index past every node it processed (feasible or
rejected). Only those nodes are scored, so on large clusters the chosen node depends on the
rotation. Upstream filters with 16 workers, so the number processed past the last feasible
node varies; this model is one worker (the processed nodes end at the last one found).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# schedule_one.go minFeasibleNodesToFind, minFeasibleNodesPercentageToFind.
MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5


def num_feasible_nodes_to_find(num_all_nodes: int, percentage: int = 0) -> int:
    """Upstream ``numFeasibleNodesToFind``: all nodes below 100; else ``percentage`` of
    them (0: adaptive, 50% minus 1% per 125 nodes, at least 5%), at least 100."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    if percentage <= 0:
        percentage = max(50 - num_all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
    num = num_all_nodes * percentage // 100
    return max(num, MIN_FEASIBLE_NODES_TO_FIND)


@dataclass(slots=True)
class FeasibleNodeSampler:
    """The scheduler's ``nextStartNodeIndex`` and ``percentageOfNodesToScore`` (0: the
    adaptive default), carried from cycle to cycle by the caller."""

    percentage: int = 0
    next_start: int = 0

    def take(self, feasible: np.ndarray, num_nodes: int) -> np.ndarray:
        """The feasible nodes upstream's search would have found (sorted), given every
        feasible node of the cycle; advances the start index as upstream does."""
        if num_nodes == 0:
            return feasible
        limit = num_feasible_nodes_to_find(num_nodes, self.percentage)
        start = self.next_start % num_nodes
        if feasible.size <= limit:
            chosen, processed = feasible, num_nodes
        else:
            rel = (feasible - start) % num_nodes
            order = np.argsort(rel, kind="stable")[:limit]
            chosen = np.sort(feasible[order])
            processed = int(rel[order[-1]]) + 1
        self.next_start = (start + processed) % num_nodes
        return chosen
