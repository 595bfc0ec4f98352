"""Kubelet admission and critical-pod admission preemption.

Upstream: ``pkg/kubelet/lifecycle/predicate.go`` (which failures exist) and
``pkg/kubelet/preemption/preemption.go`` (``HandleAdmissionFailure``, ``getPodsToPreempt``).

1. The kubelet checks the pod against the node: the OS label/field first (rejected
   outright, preemption cannot help), then ``AdmissionCheck`` (insufficient resources,
   node affinity/selector, node name, host ports) and untolerated ``NoExecute`` taints
   (not for static pods).
2. On failure, only a *critical* pod whose *every* failure is an insufficient resource
   may evict pods; the shortfall per resource is ``requested - (capacity - used)``.
3. Victims: preemptable pods split by QoS; reject if all of them cannot cover the
   shortfall; then pick Guaranteed pods still needed after all BestEffort and Burstable
   would go, Burstable pods still needed after all BestEffort and those Guaranteed, and
   BestEffort pods still needed after those; each group greedily by smallest distance,
   ties to the smaller request (memory, then cpu).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kubepreempt.api.errors import InputError
from kubepreempt.api.objects import NO_EXECUTE, Node, Pod, tolerates_all
from kubepreempt.api.ports import ports_conflict
from kubepreempt.api.quantity import format_amount
from kubepreempt.api.resources import BEST_EFFORT, BURSTABLE, GUARANTEED
from kubepreempt.kubelet.critical import is_critical_pod, is_static_pod, preemptable
from kubepreempt.kubelet.requests import request_quantity

ADMIT, EVICT, REJECT = "admit", "evict", "reject"
OS_LABEL = "kubernetes.io/os"
DEFAULT_NODE_OS = "linux"  # the kubelet compares with runtime.GOOS
_NATIVE = ("cpu", "memory", "ephemeral-storage", "pods")
_OUT_OF = {"cpu": "OutOfcpu", "memory": "OutOfmemory",
           "ephemeral-storage": "OutOfephemeral-storage", "pods": "OutOfpods"}

# Predicate names and descriptions, as the scheduler plugins the kubelet reuses spell them.
NODE_AFFINITY = ("NodeAffinity", "node(s) didn't match Pod's node affinity/selector")
NODE_NAME = ("NodeName", "node(s) didn't match the requested node name")
NODE_PORTS = ("NodePorts", "node(s) didn't have free ports for the requested pod ports")
TAINT_TOLERATION = ("TaintToleration", "node(s) had untolerated taint")


@dataclass(frozen=True, slots=True)
class Failure:
    """One admission failure: an ``InsufficientResourceError`` (``resource`` set) or a
    ``PredicateFailureError`` (``predicate`` and ``description``)."""

    predicate: str = ""
    description: str = ""
    resource: str = ""
    requested: int = 0
    used: int = 0
    capacity: int = 0

    @property
    def insufficient(self) -> bool:
        """True for an insufficient-resource failure."""
        return bool(self.resource)

    @property
    def amount(self) -> int:
        """``GetInsufficientAmount``: ``requested - (capacity - used)``."""
        return self.requested - (self.capacity - self.used)

    @property
    def reason(self) -> str:
        """The kubelet's status reason: ``OutOfcpu``..., else the predicate name."""
        if self.insufficient:
            return _OUT_OF.get(self.resource, f"OutOf{self.resource}")
        return self.predicate

    @property
    def message(self) -> str:
        """The kubelet's status message for this failure."""
        if self.insufficient:
            return (f"Node didn't have enough resource: {self.resource}, requested: "
                    f"{self.requested}, used: {self.used}, capacity: {self.capacity}")
        return f"Predicate {self.predicate} failed: {self.description}"

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        if self.insufficient:
            return {"reason": self.reason, "resource": self.resource,
                    "requested": self.requested, "used": self.used,
                    "capacity": self.capacity, "shortfall": self.amount}
        return {"reason": self.reason, "message": self.description}


@dataclass(frozen=True, slots=True)
class Requirement:
    """An ``admissionRequirement``: how much of one resource must be freed."""

    resource: str
    quantity: int

    def __str__(self) -> str:
        return f"{self.resource}={format_amount(self.resource, self.quantity)}"


Requirements = tuple[Requirement, ...]


class PreemptionError(Exception):
    """No set of running pods can free the requirements (upstream returns an error)."""

    def __init__(self, remaining: Requirements) -> None:
        self.remaining = remaining
        super().__init__("no set of running pods found to reclaim resources: "
                         + requirements_string(remaining))


def requirements_string(reqs: Iterable[Requirement]) -> str:
    """Upstream's ``toString``: ``[(res: cpu, q: 100), ]``."""
    return "[" + "".join(f"(res: {r.resource}, q: {r.quantity}), " for r in reqs) + "]"


def resource_request(pod: Pod, resource: str) -> int:
    """``GetResourceRequest``: 1 for ``pods``, else ``GetResourceRequestQuantity`` in
    canonical units (overhead only on a resource the pod requests: a pod whose only
    request is its overhead frees nothing)."""
    if resource == "pods":
        return 1
    return request_quantity(pod, resource)


def subtract(reqs: Requirements, *pods: Pod) -> Requirements:
    """Requirements left if ``pods`` were evicted; fully met ones are dropped."""
    out = []
    for req in reqs:
        left = req.quantity
        for pod in pods:
            left -= resource_request(pod, req.resource)
            if left <= 0:
                break
        if left > 0:
            out.append(Requirement(req.resource, left))
    return tuple(out)


def distance(reqs: Requirements, pod: Pod) -> float:
    """Sum over requirements of (unmet fraction)^2, so each resource weighs the same."""
    dist = 0.0
    for req in reqs:
        remaining = float(req.quantity - resource_request(pod, req.resource))
        if remaining > 0:
            dist += (remaining / float(req.quantity)) ** 2
    return dist


def smaller_resource_request(p1: Pod, p2: Pod) -> bool:
    """True if ``p1`` requests less memory, then less cpu; true on a full tie."""
    for res in ("memory", "cpu"):
        r1, r2 = resource_request(p1, res), resource_request(p2, res)
        if r1 < r2:
            return True
        if r1 > r2:
            return False
    return True


def sort_pods_by_qos(preemptor: Pod, pods: Iterable[Pod]) -> tuple[list[Pod], list[Pod],
                                                                   list[Pod]]:
    """Preemptable pods split into (BestEffort, Burstable, Guaranteed), input order kept."""
    groups: dict[str, list[Pod]] = {BEST_EFFORT: [], BURSTABLE: [], GUARANTEED: []}
    for pod in pods:
        if preemptable(preemptor, pod):
            groups[pod.qos].append(pod)
    return groups[BEST_EFFORT], groups[BURSTABLE], groups[GUARANTEED]


def get_pods_to_preempt_by_distance(pods: Sequence[Pod], reqs: Requirements) -> list[Pod]:
    """Greedy choice minimising distance to the remaining requirements.

    Mirrors Go exactly, including removing a chosen pod by moving the last pod into its
    slot (which decides later ties between equal pods).
    """
    pool = list(pods)
    chosen: list[Pod] = []
    while reqs:
        if not pool:
            raise PreemptionError(reqs)
        best_dist = float(len(reqs) + 1)  # one requirement contributes at most 1
        best = 0
        for i, pod in enumerate(pool):
            dist = distance(reqs, pod)
            if dist < best_dist or (dist == best_dist
                                    and smaller_resource_request(pod, pool[best])):
                best_dist, best = dist, i
        reqs = subtract(reqs, pool[best])
        chosen.append(pool[best])
        pool[best] = pool[-1]
        pool.pop()
    return chosen


@dataclass(slots=True)
class QoSStep:
    """One QoS class's step of victim selection, for explanations."""

    qos: str
    candidates: list[str]
    needed: Requirements  # what this class must still free, given the assumption
    assumed_gone: list[str]  # pods assumed evicted when computing ``needed``
    chosen: list[str]

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {"qos": self.qos, "candidates": self.candidates,
                "needed": [{"resource": r.resource, "quantity": r.quantity}
                           for r in self.needed],
                "assumedGone": self.assumed_gone, "chosen": self.chosen}


def get_pods_to_preempt(preemptor: Pod, pods: Iterable[Pod], reqs: Requirements,
                        steps: list[QoSStep] | None = None) -> list[Pod]:
    """``getPodsToPreempt``: victims in upstream's kill order (BestEffort, Burstable,
    Guaranteed). Raises :class:`PreemptionError` when the requirements cannot be met.
    ``steps``, when given, receives the three QoS steps in the order they are computed.
    """
    best_effort, burstable, guaranteed = sort_pods_by_qos(preemptor, pods)
    unmet = subtract(reqs, *best_effort, *burstable, *guaranteed)
    if unmet:
        raise PreemptionError(unmet)

    def step(qos: str, group: list[Pod], gone: list[Pod]) -> list[Pod]:
        needed = subtract(reqs, *gone)
        chosen = get_pods_to_preempt_by_distance(group, needed)
        if steps is not None:
            steps.append(QoSStep(qos, [p.key for p in group], needed,
                                 [p.key for p in gone], [p.key for p in chosen]))
        return chosen

    g_evict = step(GUARANTEED, guaranteed, [*best_effort, *burstable])
    bu_evict = step(BURSTABLE, burstable, [*best_effort, *g_evict])
    be_evict = step(BEST_EFFORT, best_effort, [*bu_evict, *g_evict])
    return [*be_evict, *bu_evict, *g_evict]


# ---- the admission check -------------------------------------------------------------
def _is_extended(resource: str) -> bool:
    # v1helper.IsExtendedResourceName: outside the kubernetes.io namespace, not requests.*
    return ("/" in resource and "kubernetes.io/" not in resource
            and not resource.startswith("requests."))


def resource_failures(pod: Pod, node: Node, others: Sequence[Pod]) -> list[Failure]:
    """``noderesources.Fits`` as the kubelet calls it: pods, cpu, memory,
    ephemeral-storage, then other scalar resources (sorted by name).

    Extended resources the node does not advertise are dropped first, as the kubelet's
    ``removeMissingExtendedResources`` does.
    """
    alloc = node.allocatable
    out: list[Failure] = []
    allowed = alloc.get("pods", 0)
    if len(others) + 1 > allowed:
        out.append(Failure(resource="pods", requested=1, used=len(others), capacity=allowed))
    wanted = {r: q for r, q in pod.requests.items()
              if r != "pods" and q > 0 and not (_is_extended(r) and r not in alloc)}
    if not wanted:
        return out
    used: dict[str, int] = {}
    for other in others:
        for r, q in other.requests.items():
            used[r] = used.get(r, 0) + q
    order = [r for r in _NATIVE if r in wanted] + sorted(r for r in wanted if r not in _NATIVE)
    for r in order:
        cap = alloc.get(r, 0)
        if wanted[r] > cap - used.get(r, 0):
            out.append(Failure(resource=r, requested=wanted[r], used=used.get(r, 0),
                               capacity=cap))
    return out


def _matches_node_affinity(pod: Pod, node: Node) -> bool:
    for key, val in pod.node_selector.items():
        if node.labels.get(key) != val:
            return False
    aff = pod.affinity
    if aff is not None and aff.node_required is not None:
        return aff.node_required.matches(node.labels, node.name)
    return True


def _ports_conflict(pod: Pod, others: Sequence[Pod]) -> bool:
    # The scheduler's NodePorts rule on the same GetHostPorts sets (nodeports.Fits).
    return any(ports_conflict(pod.host_ports, other.host_ports) for other in others)


def os_rejection(pod: Pod, node: Node) -> Failure | None:
    """The OS checks done before anything else (no preemption can help them)."""
    node_os = node.labels.get(OS_LABEL) or DEFAULT_NODE_OS
    pod_os = pod.labels.get(OS_LABEL)
    if pod_os is not None and pod_os != node_os:
        return Failure("PodOSSelectorNodeLabelDoesNotMatch",
                       "Failed to admit pod as the `kubernetes.io/os` label doesn't match "
                       "node label")
    spec = pod.raw.get("spec") if isinstance(pod.raw, Mapping) else None
    os_field = spec.get("os") if isinstance(spec, Mapping) else None
    if isinstance(os_field, Mapping) and os_field.get("name") not in (None, node_os):
        return Failure("PodOSNotSupported",
                       "Failed to admit pod as the OS field doesn't match node OS")
    return None


def admission_failures(pod: Pod, node: Node, others: Sequence[Pod]) -> list[Failure]:
    """The kubelet's ``generalFilter``: every failure, in upstream's order."""
    out = resource_failures(pod, node, others)
    if not _matches_node_affinity(pod, node):
        out.append(Failure(*NODE_AFFINITY))
    if pod.node_name and pod.node_name != node.name:
        out.append(Failure(*NODE_NAME))
    if pod.host_ports and _ports_conflict(pod, others):
        out.append(Failure(*NODE_PORTS))
    if not is_static_pod(pod) and any(
            t.effect == NO_EXECUTE and not tolerates_all(pod.tolerations, t)
            for t in node.taints):
        out.append(Failure(*TAINT_TOLERATION))
    return out


@dataclass(slots=True)
class AdmissionResult:
    """What the kubelet does with a pod on a node."""

    pod: str
    node: str
    result: str  # admit | evict | reject
    victims: list[Pod] = field(default_factory=list)
    reason: str = ""
    message: str = ""
    critical: bool = False
    failures: list[Failure] = field(default_factory=list)
    shortfall: Requirements = ()
    steps: list[QoSStep] = field(default_factory=list)

    @property
    def victim_keys(self) -> list[str]:
        """Victims as ``namespace/name``, in upstream's kill order."""
        return [p.key for p in self.victims]

    def to_json(self) -> dict[str, Any]:
        """The ``kubelet-admit -o json`` object."""
        return {
            "pod": self.pod, "node": self.node, "result": self.result,
            "victims": self.victim_keys, "reason": self.reason, "message": self.message,
            "critical": self.critical,
            "failures": [f.to_json() for f in self.failures],
            "shortfall": [{"resource": r.resource, "quantity": r.quantity}
                          for r in self.shortfall],
            "steps": [s.to_json() for s in self.steps],
        }


def admit_pod(pod: Pod, node: Node, others: Iterable[Pod]) -> AdmissionResult:
    """Admit ``pod`` on ``node`` where ``others`` run (the pod itself is ignored there)."""
    running = [p for p in others if p.key != pod.key]
    critical = is_critical_pod(pod)
    res = AdmissionResult(pod.key, node.name, REJECT, critical=critical)
    os_fail = os_rejection(pod, node)
    if os_fail is not None:
        res.failures, res.reason, res.message = [os_fail], os_fail.reason, os_fail.description
        return res
    res.failures = admission_failures(pod, node, running)
    if not res.failures:
        res.result = ADMIT
        return res
    reasons = res.failures
    if critical:
        non_resource = [f for f in reasons if not f.insufficient]
        if non_resource:
            # Critical pods never fail for resources: only the other reasons are reported.
            reasons = non_resource
        else:
            res.shortfall = tuple(Requirement(f.resource, f.amount) for f in reasons)
            try:
                res.victims = get_pods_to_preempt(pod, running, res.shortfall, res.steps)
            except PreemptionError as exc:
                res.reason = "UnexpectedAdmissionError"
                res.message = ("Unexpected error while attempting to recover from admission "
                               f"failure: preemption: error finding a set of pods to preempt: "
                               f"{exc}")
                return res
            res.result = EVICT
            return res
    first = reasons[0]  # the kubelet reports only the first reason
    res.reason, res.message = first.reason, first.message
    return res


def admit(cluster: Any, pod_key: str, node_name: str) -> AdmissionResult:
    """:func:`admit_pod` on a :class:`~kubepreempt.cluster.Cluster` snapshot.

    Raises :class:`InputError` when the node or pod is missing, or the pod is bound to
    another node.
    """
    idx = cluster.node_index.get(node_name)
    if idx is None:
        raise InputError(f"node {node_name!r} is not in the input", kind="Node",
                         name=node_name)
    pod = cluster.find_pod(pod_key)
    if pod is None:
        raise InputError(f"pod {pod_key!r} is not in the input", kind="Pod", name=pod_key)
    if pod.node_name and pod.node_name != node_name:
        raise InputError(f"already bound to node {pod.node_name!r}, not {node_name!r}",
                         pod.source, "Pod", pod.key)
    return admit_pod(pod, cluster.nodes[idx], cluster.node_pods[idx].values())
