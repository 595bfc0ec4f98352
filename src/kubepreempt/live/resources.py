"""The API resources kubepreempt reads, by kind: group/version, plural, scope."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Resource:
    """One listable API resource."""

    kind: str
    api_version: str  # "v1" or "group/version"
    plural: str
    namespaced: bool
    optional: bool = False  # absent API (404) is a warning, not an error
    # A CRD whose served versions differ between releases: ask API discovery which
    # version serves it (``api_version`` is only the fallback's group).
    discover: bool = False
    # An optional API that is off by default (behind a feature gate): its absence is the
    # usual case, so it is skipped without a warning.
    off_by_default: bool = False

    @property
    def group(self) -> str:
        """The API group (``""`` for the core group)."""
        return self.api_version.rpartition("/")[0]

    def path(self, namespace: str | None = None) -> str:
        """The collection URL path, all namespaces unless ``namespace`` is given."""
        base = "/api/v1" if self.api_version == "v1" else f"/apis/{self.api_version}"
        if namespace and self.namespaced:
            return f"{base}/namespaces/{namespace}/{self.plural}"
        return f"{base}/{self.plural}"

    def describe(self) -> str:
        """``pods`` / ``priorityclasses.scheduling.k8s.io``, as RBAC and kubectl name it."""
        return f"{self.plural}.{self.group}" if self.group else self.plural


KUEUE = "kueue.x-k8s.io/v1beta1"  # v0.7 serves only this; later releases are discovered
# Kubernetes 1.37's workload API, behind the GenericWorkload gate (Beta, off by default);
# 1.36 served v1alpha2, which kubepreempt does not model.
WORKLOAD_API = "scheduling.k8s.io/v1beta1"

RESOURCES: dict[str, Resource] = {r.kind: r for r in (
    Resource("Namespace", "v1", "namespaces", False),
    Resource("Node", "v1", "nodes", False),
    Resource("Pod", "v1", "pods", True),
    Resource("PriorityClass", "scheduling.k8s.io/v1", "priorityclasses", False),
    Resource("PodDisruptionBudget", "policy/v1", "poddisruptionbudgets", True),
    Resource("RuntimeClass", "node.k8s.io/v1", "runtimeclasses", False),
    Resource("ResourceQuota", "v1", "resourcequotas", True),
    Resource("Service", "v1", "services", True),
    Resource("ReplicationController", "v1", "replicationcontrollers", True),
    Resource("ReplicaSet", "apps/v1", "replicasets", True),
    Resource("StatefulSet", "apps/v1", "statefulsets", True),
    Resource("ResourceFlavor", KUEUE, "resourceflavors", False, discover=True),
    Resource("ClusterQueue", KUEUE, "clusterqueues", False, discover=True),
    # Hierarchical cohorts: none before Kueue v0.9 (then v1alpha1, later v1beta1/v1beta2).
    Resource("Cohort", KUEUE, "cohorts", False, optional=True, discover=True),
    Resource("LocalQueue", KUEUE, "localqueues", True, discover=True),
    Resource("WorkloadPriorityClass", KUEUE, "workloadpriorityclasses", False, discover=True),
    Resource("Workload", KUEUE, "workloads", True, discover=True),
    Resource("PodMetrics", "metrics.k8s.io/v1beta1", "pods", True, optional=True),
    Resource("PodGroup", WORKLOAD_API, "podgroups", True, optional=True,
             off_by_default=True),
)}
# Kubernetes 1.37's Workload shares its kind with Kueue's: it is listed by this name.
SCHEDULING_WORKLOAD = "Workload.scheduling.k8s.io"
RESOURCES[SCHEDULING_WORKLOAD] = Resource("Workload", WORKLOAD_API, "workloads", True,
                                          optional=True, off_by_default=True)
#: The workload API's kinds as ``schedule`` lists them (a 404: the API is off).
WORKLOAD_API_KINDS = ("PodGroup", SCHEDULING_WORKLOAD)


# Inputs that are not API objects, which only files provide: Kueue's manager configuration,
# kube-scheduler's configuration and kube-apiserver's admission configuration (they live in
# the control plane's files or ConfigMaps).
FILE_ONLY_KINDS = frozenset({"Configuration", "KubeSchedulerConfiguration",
                             "AdmissionConfiguration", "ResourceQuotaConfiguration"})


def listed(kinds: tuple[str, ...] | list[str]) -> list[Resource]:
    """The resources to list for ``kinds`` (a kind neither listable nor file-only is a bug:
    a command would silently miss its objects on --cluster)."""
    out = []
    for kind in kinds:
        if kind in FILE_ONLY_KINDS:
            continue
        if kind not in RESOURCES:
            raise KeyError(f"kind {kind!r} has no API resource in kubepreempt.live.resources")
        out.append(RESOURCES[kind])
    return out
