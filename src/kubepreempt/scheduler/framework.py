"""The scheduling framework: statuses, per-cycle state, and the plugin interfaces.

Mirrors upstream's extension points. A filter plugin implements ``filter`` for one node
(used by preemption's what-if checks and by nodes with nominated pods) and may implement
``filter_nodes`` to decide many nodes at once with numpy (the fast path). Plugins that keep
pre-computed cross-node state (inter-pod affinity, topology spread) implement ``add_pod`` /
``remove_pod`` so what-if checks can update that state, as upstream's PreFilterExtensions.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Protocol

import numpy as np

from kubepreempt.api.objects import Node, Pod
from kubepreempt.scheduler.cache import node_cached
from kubepreempt.snapshot import NodeView, Snapshot

MAX_NODE_SCORE = 100


class Code(IntEnum):
    """Status codes, as upstream's ``framework.Code``."""

    SUCCESS = 0
    ERROR = 1
    UNSCHEDULABLE = 2
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    SKIP = 4

    @property
    def upstream(self) -> str:
        """Upstream's spelling, ``Code.String()``: ``UnschedulableAndUnresolvable``."""
        return "".join(part.capitalize() for part in self.name.split("_"))


@dataclass(frozen=True, slots=True)
class Status:
    """A plugin's verdict on one node: code, reasons (upstream wording) and plugin name."""

    code: Code
    reasons: tuple[str, ...]
    plugin: str = ""

    @property
    def unresolvable(self) -> bool:
        """True when preemption cannot help on this node."""
        return self.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE

    def message(self) -> str:
        """Reasons joined as upstream's ``Status.Message()``."""
        return ", ".join(self.reasons)


def unschedulable(plugin: str, *reasons: str) -> Status:
    """An Unschedulable status (preemption may help)."""
    return Status(Code.UNSCHEDULABLE, reasons, plugin)


def unresolvable(plugin: str, *reasons: str) -> Status:
    """An UnschedulableAndUnresolvable status (preemption cannot help)."""
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reasons, plugin)


@dataclass(slots=True)
class CycleState:
    """Per-pod scheduling state: the pod, its request row, and each plugin's data."""

    pod: Pod
    cluster: Snapshot
    request: np.ndarray
    data: dict[str, Any] = field(default_factory=dict)
    # PreFilter's node-name result (upstream PreFilterResult.NodeNames): None = all nodes.
    node_names: frozenset[str] | None = None

    def cluster_cache(self, key: Any, compute: Any) -> Any:
        """Node-derived data memoised per snapshot (``scheduler.cache.node_cached``)."""
        return node_cached(self.cluster, key, compute)

    def clone(self) -> CycleState:
        """A copy whose plugin data can be changed by add_pod/remove_pod independently."""
        data = {k: (v.clone() if hasattr(v, "clone") else v) for k, v in self.data.items()}
        return CycleState(self.pod, self.cluster, self.request, data, self.node_names)


def _hooks(cls: type) -> frozenset[str]:
    """The optional extension points ``cls`` implements, as upstream's framework keeps a
    list per extension point of the plugins that implement it: the runner calls only
    these (the defaults return a constant, so skipping them changes nothing)."""
    out = set()
    if issubclass(cls, FilterPlugin):
        if cls.pre_filter is not FilterPlugin.pre_filter:
            out.add("pre_filter")
        if cls.relevant is not FilterPlugin.relevant:
            out.add("relevant")
    score_base = globals().get("ScorePlugin")  # not yet defined for the filter bases above it
    if score_base is not None and issubclass(cls, score_base):
        if cls.pre_score is not ScorePlugin.pre_score:
            out.add("pre_score")
        # score_relevant's default is ScorePlugin.relevant (True) for a plugin that also
        # filters, else its own relevant().
        if cls.score_relevant is not ScorePlugin.score_relevant or (
                not issubclass(cls, FilterPlugin) and cls.relevant is not ScorePlugin.relevant):
            out.add("score_relevant")
    return frozenset(out)


class FilterPlugin(ABC):
    """Base class of filter plugins. Subclasses set ``name`` and implement ``filter``."""

    name = "Filter"
    #: Optional extension points this class implements (:func:`_hooks`).
    hooks: frozenset[str] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.hooks = _hooks(cls)

    def pre_filter(self, state: CycleState) -> Status | None:
        """Compute per-pod data into ``state.data``; a status here rejects every node."""
        return None

    @abstractmethod
    def filter(self, state: CycleState, view: NodeView) -> Status | None:
        """Verdict for one node (``None`` means it passes)."""

    def filter_nodes(self, state: CycleState, nodes: np.ndarray) -> list[tuple[np.ndarray, Status]]:
        """Verdicts for many nodes: a list of (failing node indices, status).

        The default loops over ``filter``; plugins override it with vector code.
        """
        cluster = state.cluster
        return group_failures(nodes, lambda i: self.filter(state, cluster.node_view(i)))

    def relevant(self, state: CycleState) -> bool:
        """False when the plugin cannot reject any node for this pod (skipped)."""
        return True

    def add_pod(self, state: CycleState, pod: Pod, view: NodeView) -> None:
        """Update this plugin's data in ``state`` as if ``pod`` ran on ``view``'s node."""
        return None  # node-local plugins keep no cross-node data: nothing to update

    def remove_pod(self, state: CycleState, pod: Pod, view: NodeView) -> None:
        """Update this plugin's data in ``state`` as if ``pod`` left ``view``'s node."""
        return None  # node-local plugins keep no cross-node data: nothing to update


class NodeCheckState(Protocol):
    """A PreFilter result that decides single nodes and follows what-if pod moves."""

    def check(self, node: Node) -> Status | None: ...

    def update_with_pod(self, other: Pod, node: Node, delta: int) -> None: ...


class PreFilterStatePlugin(FilterPlugin):
    """A filter whose PreFilter stores a ``NodeCheckState`` under ``state.data[self.name]``
    (absent: every node passes). Filter, AddPod and RemovePod delegate to that state, as
    upstream's InterPodAffinity and PodTopologySpread do with their preFilterState."""

    def _state(self, state: CycleState) -> NodeCheckState | None:
        return state.data.get(self.name)

    def filter(self, state: CycleState, view: NodeView) -> Status | None:
        s = self._state(state)
        return None if s is None else s.check(view.node)

    def filter_nodes(self, state: CycleState, nodes: np.ndarray) -> list[tuple[np.ndarray, Status]]:
        s = self._state(state)
        if s is None:
            return []
        all_nodes = state.cluster.nodes  # no NodeView per node: check needs only the Node
        return group_failures(nodes, lambda i: s.check(all_nodes[i]))

    def add_pod(self, state: CycleState, pod: Pod, view: NodeView) -> None:
        s = self._state(state)
        if s is not None:
            s.update_with_pod(pod, view.node, 1)

    def remove_pod(self, state: CycleState, pod: Pod, view: NodeView) -> None:
        s = self._state(state)
        if s is not None:
            s.update_with_pod(pod, view.node, -1)


def group_failures(nodes: np.ndarray, check: Callable[[int], Status | None]
                   ) -> list[tuple[np.ndarray, Status]]:
    """``filter_nodes``' result from a per-node-index ``check``: failing indices by status."""
    failures: dict[Status, list[int]] = {}
    for i in nodes.tolist():
        status = check(i)
        if status is not None:
            failures.setdefault(status, []).append(i)
    return [(np.array(ix, np.int64), st) for st, ix in failures.items()]


class ScorePlugin(ABC):
    """Base class of score plugins: ``score`` returns normalised 0..100 per node."""

    name = "Score"
    weight = 1
    #: Optional extension points this class implements (:func:`_hooks`).
    hooks: frozenset[str] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.hooks = _hooks(cls)

    def pre_score(self, state: CycleState, nodes: np.ndarray) -> None:
        """Compute per-pod scoring data (optional)."""
        return None  # most scorers need no per-pod preparation

    @abstractmethod
    def score(self, state: CycleState, nodes: np.ndarray) -> np.ndarray:
        """Scores for ``nodes`` (int64, already normalised to 0..MAX_NODE_SCORE)."""

    def relevant(self, state: CycleState) -> bool:
        """False when the plugin would give every node the same score (skipped)."""
        return True

    def score_relevant(self, state: CycleState) -> bool:
        """Scoring's relevance test (plugins that also filter may differ per extension point)."""
        return ScorePlugin.relevant(self, state) if isinstance(self, FilterPlugin) \
            else self.relevant(state)


def default_normalize(scores: np.ndarray, reverse: bool) -> np.ndarray:
    """Upstream ``helper.DefaultNormalizeScore``: scale to 0..100 by the maximum."""
    max_count = int(scores.max()) if scores.size else 0
    if max_count == 0:
        if reverse:
            return np.full_like(scores, MAX_NODE_SCORE)
        return scores
    out = MAX_NODE_SCORE * scores // max_count
    return MAX_NODE_SCORE - out if reverse else out
