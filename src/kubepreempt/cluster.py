"""The cluster, in one import: :class:`Cluster`, the snapshot's names, and loading.

The pieces live in their own modules, layered so that the scheduler sits between them:
:mod:`kubepreempt.snapshot` (what the scheduler reads; imports nothing of the scheduler),
:mod:`kubepreempt.cluster_state` (``Cluster``: the snapshot plus admission state, the
scheduler configuration and input hints) and :mod:`kubepreempt.loader`
(``build_cluster``). Callers outside the scheduler may import any of them from here.
"""

from __future__ import annotations

from kubepreempt.cluster_state import (
    POD_CREATORS,
    SCHEDULER_CONFIG_KIND,
    SCHEDULER_KINDS,
    Cluster,
)
from kubepreempt.loader import build_cluster, build_with_warnings, print_warnings
from kubepreempt.snapshot import (
    BASE_RESOURCES,
    CPU,
    EPHEMERAL,
    INT64_MAX,
    MEMORY,
    PODS,
    NodeView,
    Snapshot,
    pdb_disruptions_allowed,
)

__all__ = ["BASE_RESOURCES", "CPU", "EPHEMERAL", "INT64_MAX", "MEMORY", "PODS",
           "POD_CREATORS", "SCHEDULER_CONFIG_KIND", "SCHEDULER_KINDS", "Cluster", "NodeView",
           "Snapshot", "build_cluster", "build_with_warnings", "pdb_disruptions_allowed",
           "print_warnings"]
