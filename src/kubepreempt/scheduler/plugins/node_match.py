"""Node inclusion checks shared by the cross-pod plugins (topology spread's node policies)."""

from __future__ import annotations

from kubepreempt.api.objects import NO_EXECUTE, NO_SCHEDULE, Node, Pod, tolerates_all


def pod_matches_node_selector_and_affinity(pod: Pod, node: Node) -> bool:
    """Upstream ``GetRequiredNodeAffinity(pod).Match(node)``.

    ``spec.nodeSelector`` entries must all be equal labels, and the required node
    affinity (when present) must match one of its terms; an empty term list matches no
    node, as upstream.
    """
    labels = node.labels
    for key, val in pod.node_selector.items():
        if labels.get(key) != val:
            return False
    aff = pod.affinity
    if aff is not None and aff.node_required is not None:
        return aff.node_required.matches(labels, node.name)
    return True


def pod_tolerates_node_taints(pod: Pod, node: Node) -> bool:
    """True when every NoSchedule/NoExecute taint of ``node`` is tolerated by ``pod``.

    Upstream ``FindMatchingUntoleratedTaint`` with ``DoNotScheduleTaintsFilterFunc``:
    PreferNoSchedule taints never exclude a node.
    """
    tolerations = pod.tolerations
    return all(tolerates_all(tolerations, t) for t in node.taints
               if t.effect in (NO_SCHEDULE, NO_EXECUTE))
