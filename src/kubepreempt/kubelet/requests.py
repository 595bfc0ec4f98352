"""The kubelet's per-pod request figure (upstream ``v1resource.GetResourceRequestQuantity``).

The node's used total counts every pod's full requests, overhead included. What a victim
frees at admission preemption (``getPodsToPreempt``) and what eviction ranking compares
usage with (``exceedMemoryRequests``, the memory and disk rankers) is this figure instead:
spec requests (pod-level ones when set), plus ``spec.overhead`` only for a resource the pod
requests at all.
"""

from __future__ import annotations

from kubepreempt.api.objects import Pod


def request_quantity(pod: Pod, resource: str) -> int:
    """``GetResourceRequestQuantity(pod, resource)`` in canonical units."""
    quantities = pod.kubelet_requests
    if quantities is None:  # built in code without a manifest: requests carry no overhead
        quantities = pod.requests
    return quantities.get(resource, 0)
