"""Critical, static and mirror pods, and who may preempt whom at the kubelet.

Upstream ``pkg/kubelet/types/pod_update.go``. A pod's priority here is always resolved
(the Priority admission plugin fills ``spec.priority``), so upstream's "priority is nil"
branches of ``Preemptable`` reduce to comparing resolved priorities; a pod without any
priority compares as 0, which gives the same answers as upstream's nil cases in its tests.
"""

from __future__ import annotations

from kubepreempt.api.objects import Pod
from kubepreempt.api.priority import SYSTEM_CRITICAL_PRIORITY

CONFIG_SOURCE_ANNOTATION = "kubernetes.io/config.source"
CONFIG_MIRROR_ANNOTATION = "kubernetes.io/config.mirror"
API_SERVER_SOURCE = "api"
SYSTEM_NODE_CRITICAL = "system-node-critical"


def is_static_pod(pod: Pod) -> bool:
    """True when the pod came from a file or URL: ``kubernetes.io/config.source`` != ``api``.

    A pod without the annotation is not static (upstream: ``GetPodSource`` errors).
    """
    source = pod.annotations.get(CONFIG_SOURCE_ANNOTATION)
    return source is not None and source != API_SERVER_SOURCE


def is_mirror_pod(pod: Pod) -> bool:
    """True when the pod is the API mirror of a static pod (has ``kubernetes.io/config.mirror``)."""
    return CONFIG_MIRROR_ANNOTATION in pod.annotations


def is_critical_priority(priority: int) -> bool:
    """``IsCriticalPodBasedOnPriority``: priority >= 2,000,000,000."""
    return priority >= SYSTEM_CRITICAL_PRIORITY


def is_critical_pod(pod: Pod) -> bool:
    """``IsCriticalPod``: static, mirror, or priority >= ``SystemCriticalPriority``."""
    return is_static_pod(pod) or is_mirror_pod(pod) or is_critical_priority(pod.priority)


def is_node_critical_pod(pod: Pod) -> bool:
    """``IsNodeCriticalPod``: critical and of class ``system-node-critical``."""
    return is_critical_pod(pod) and pod.priority_class_name == SYSTEM_NODE_CRITICAL


def preemptable(preemptor: Pod, preemptee: Pod) -> bool:
    """``Preemptable``: a critical pod may evict a non-critical one; otherwise only a
    strictly higher priority may evict a lower one."""
    if is_critical_pod(preemptor) and not is_critical_pod(preemptee):
        return True
    return preemptor.priority > preemptee.priority
