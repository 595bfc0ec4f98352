"""Dominant resource shares for fair sharing (upstream ``pkg/cache/scheduler/fair_sharing.go``).

For a node with a parent: the largest ratio, over resources, of what it uses above its
subtree quota to what the parent could lend, divided by its fair-sharing weight; a weight
of 0 makes a non-zero share infinite. Read by fair-sharing
preemption, the fair-sharing entry order and the reported weighted shares.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from kubepreempt.kueue.quota import FR, CohortState, CQState, QuotaNode, Usage


@dataclass(frozen=True, slots=True)
class DRS:
    """A node's dominant resource share (``DRS``)."""

    weight: float
    ratio: float = 0.0  # unweighted, per mille of the lendable resource
    resource: str = ""
    borrowing: bool = False
    # The flavor-resources the node uses above its subtree quota (``borrowedFRs``).
    borrowed_frs: tuple[FR, ...] = ()

    @property
    def zero_weight_borrows(self) -> bool:
        """``zeroWeightBorrows``: weight 0 and a non-zero share, which is infinite. (A node
        borrowing only resources its tree cannot lend has a zero ratio: share 0.)"""
        return self.weight == 0 and self.ratio != 0

    def is_borrowing_on(self, requested: Usage) -> bool:
        """``IsBorrowingOn``: the node borrows on a flavor-resource ``requested`` asks a
        positive amount of."""
        return any(requested.get(f, {}).get(r, 0) > 0 for f, r in self.borrowed_frs)

    def precise(self) -> float:
        """``PreciseWeightedShare``."""
        if self.zero_weight_borrows:
            return math.inf
        if self.ratio == 0:
            return 0.0
        return self.ratio / self.weight

    def rounded(self) -> int:
        """``roundedWeightedShare`` (what ``status.fairSharing.weightedShare`` shows)."""
        if self.zero_weight_borrows:
            return (1 << 63) - 1
        return math.ceil(self.precise())


NEGATIVE = DRS(weight=1.0, ratio=-1.0)


def compare_drs(a: DRS, b: DRS) -> int:
    """``CompareDRS``: -1, 0 or 1."""
    if a.zero_weight_borrows and b.zero_weight_borrows:
        return (a.ratio > b.ratio) - (a.ratio < b.ratio)
    if a.zero_weight_borrows:
        return 1
    if b.zero_weight_borrows:
        return -1
    pa, pb = a.precise(), b.precise()
    return (pa > pb) - (pa < pb)


def weight(node: QuotaNode) -> float:
    """The node's fair-sharing weight (1 by default)."""
    if isinstance(node, CQState):
        return node.spec.fair_weight_milli / 1000
    assert isinstance(node, CohortState)
    return node.fair_weight_milli / 1000


def dominant_resource_share(node: QuotaNode) -> DRS:
    """``dominantResourceShare``: usage above subtree quota over what the parent tree
    could lend, per resource, the largest (ties: alphabetical)."""
    w = weight(node)
    if node.parent is None:
        return DRS(w)
    borrowed: dict[str, int] = {}
    frs: list[FR] = []
    for fr, quota in node.subtree.items():
        b = node.usage.get(fr, 0) - quota
        if b > 0:
            borrowed[fr[1]] = borrowed.get(fr[1], 0) + b
            frs.append(fr)
    if not borrowed:
        return DRS(w)
    root = node.root()
    ratio, dres = 0.0, ""
    for res, b in borrowed.items():
        lendable = sum(node.parent.potential_available(fr) for fr in root.subtree
                       if fr[1] == res)
        if lendable > 0:
            r = b * 1000.0 / lendable
            if r > ratio or (r == ratio and res < dres):
                ratio, dres = r, res
    return DRS(w, ratio, dres, True, tuple(frs))
