"""Per-node filter statuses and the FitError text built from them.

Upstream keeps a ``NodeToStatus`` map and renders it with ``FitError.Error()``
(``pkg/scheduler/framework/types.go``); :class:`NodeStatuses` is the same map stored as one
small code per node, and :func:`fit_error_message` is ``FitError.Error()`` word for word.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, MutableMapping, Sequence
from typing import Any

import numpy as np

from kubepreempt.scheduler.framework import Status

# schedule_one.go ErrNoNodesAvailable: the cycle fails before any plugin runs.
NO_NODES_AVAILABLE = "no nodes available to schedule pods"


class StatusTable:
    """Distinct statuses, each known by a small code (its position in ``statuses``): the
    per-node arrays of :class:`NodeStatuses` and the preemption cache hold codes."""

    __slots__ = ("statuses", "_ids")

    def __init__(self, statuses: list[Status] | None = None) -> None:
        self.statuses: list[Status] = list(statuses or [])
        self._ids: dict[Status, int] = {st: i for i, st in enumerate(self.statuses)}

    def code(self, status: Status) -> int:
        """The code of ``status``, added on first use."""
        code = self._ids.get(status)
        if code is None:
            code = self._ids[status] = len(self.statuses)
            self.statuses.append(status)
        return code


class NodeStatuses(MutableMapping[int, Status]):
    """Node index -> Status, stored as one small code per node.

    Thousands of nodes usually share a handful of distinct statuses; assigning a status to
    an array of nodes is one numpy store instead of a Python loop, and counting reasons for
    the fit-error message is one ``bincount``.
    """

    __slots__ = ("_codes", "_statuses")

    def __init__(self, num_nodes: int) -> None:
        self._codes = np.full(num_nodes, -1, np.int32)
        self._statuses = StatusTable()

    def set_many(self, nodes: np.ndarray, status: Status) -> None:
        """Give every node in ``nodes`` the same status."""
        self._codes[nodes] = self._statuses.code(status)

    def clear_many(self, nodes: np.ndarray | list[int]) -> None:
        """Forget the statuses of ``nodes``."""
        self._codes[nodes] = -1

    def unset_mask(self) -> np.ndarray:
        """Boolean mask of the nodes that have no status."""
        return self._codes < 0

    def _code(self, key: Any) -> int:
        if isinstance(key, int | np.integer) and 0 <= key < self._codes.shape[0]:
            return int(self._codes[key])
        return -1

    def __getitem__(self, key: int) -> Status:
        code = self._code(key)
        if code < 0:
            raise KeyError(key)
        return self._statuses.statuses[code]

    def __contains__(self, key: object) -> bool:
        return self._code(key) >= 0

    def __setitem__(self, key: int, status: Status) -> None:
        self._codes[key] = self._statuses.code(status)

    def __delitem__(self, key: int) -> None:
        if self._code(key) < 0:
            raise KeyError(key)
        self._codes[key] = -1

    def __iter__(self) -> Iterator[int]:
        return iter(np.flatnonzero(self._codes >= 0).tolist())

    def __len__(self) -> int:
        return int(np.count_nonzero(self._codes >= 0))

    def counts(self) -> list[tuple[Status, int]]:
        """Each distinct status with how many nodes have it."""
        codes = self._codes[self._codes >= 0]
        if not codes.size:
            return []
        table = self._statuses.statuses
        per = np.bincount(codes, minlength=len(table))
        return [(st, int(n)) for st, n in zip(table, per.tolist(), strict=True) if n]

    def copy(self) -> NodeStatuses:
        """An independent copy."""
        out = NodeStatuses.__new__(NodeStatuses)
        out._codes, out._statuses = self._codes.copy(), StatusTable(self._statuses.statuses)
        return out

    def named(self, nodes: Sequence[Any]) -> dict[str, Status]:
        """Node name -> status for the nodes that have one (``nodes``: index -> node)."""
        where = np.flatnonzero(self._codes >= 0)
        table = self._statuses.statuses
        return {nodes[i].name: table[c]
                for i, c in zip(where.tolist(), self._codes[where].tolist(), strict=True)}

    def nodes_where(self, predicate) -> np.ndarray:
        """Sorted indices of the nodes whose status satisfies ``predicate``."""
        good = np.array([bool(predicate(st)) for st in self._statuses.statuses] + [False],
                        bool)
        return np.flatnonzero(good[self._codes])  # code -1 picks the trailing False


def status_counts(statuses: Mapping[int, Status] | list[Status]) -> list[tuple[Status, int]]:
    """Each status with how many nodes have it (a list of statuses counts each once)."""
    if isinstance(statuses, NodeStatuses):
        return statuses.counts()
    values = statuses.values() if isinstance(statuses, Mapping) else statuses
    return [(st, 1) for st in values]


def fit_error_message(num_nodes: int, statuses: Mapping[int, Status] | list[Status],
                      prefilter: Status | None = None, post_filter: str = "") -> str:
    """Upstream ``FitError.Error()``.

    ``0/N nodes are available:`` then ``" <PreFilter message>."`` when PreFilter rejected
    the pod (the per-node reasons are then left out), else ``" <count reason>, ...."``
    sorted as strings; then ``" <PostFilter message>"`` with no period of its own.
    """
    msg = f"0/{num_nodes} nodes are available:"
    if prefilter is not None:
        msg += f" {prefilter.message()}."
    else:
        counts: Counter[str] = Counter()
        for status, n in status_counts(statuses):
            for reason in status.reasons:
                counts[reason] += n
        if counts:
            msg += " " + ", ".join(sorted(f"{n} {reason}" for reason, n in counts.items())) + "."
    if post_filter:
        msg += f" {post_filter}"
    return msg
