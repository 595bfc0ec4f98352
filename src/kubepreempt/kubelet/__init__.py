"""The kubelet's own preemption and eviction decisions.

* :mod:`.critical` — critical, static and mirror pods; ``Preemptable``.
* :mod:`.admission` — the admission check and critical-pod admission preemption
  (upstream ``pkg/kubelet/lifecycle`` and ``pkg/kubelet/preemption``).
* :mod:`.eviction` — node-pressure eviction ranking (``pkg/kubelet/eviction``).
* :mod:`.metrics` — ``metrics.k8s.io/v1beta1`` PodMetrics as the usage source.
"""

from kubepreempt.kubelet.admission import (
    AdmissionResult,
    Failure,
    QoSStep,
    Requirement,
    admit,
    admit_pod,
    get_pods_to_preempt,
)
from kubepreempt.kubelet.critical import (
    is_critical_pod,
    is_mirror_pod,
    is_node_critical_pod,
    is_static_pod,
    preemptable,
)
from kubepreempt.kubelet.eviction import EvictionRanking, RankedPod, rank_for_eviction, rank_node
from kubepreempt.kubelet.metrics import PodUsage, parse_pod_metrics

__all__ = [
    "AdmissionResult",
    "EvictionRanking",
    "Failure",
    "PodUsage",
    "QoSStep",
    "RankedPod",
    "Requirement",
    "admit",
    "admit_pod",
    "get_pods_to_preempt",
    "is_critical_pod",
    "is_mirror_pod",
    "is_node_critical_pod",
    "is_static_pod",
    "parse_pod_metrics",
    "preemptable",
    "rank_for_eviction",
    "rank_node",
]
