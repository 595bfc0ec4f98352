"""Small builders for test clusters: plain dicts, as ``kubectl get -o yaml`` would print."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kubepreempt.api.errors import InputError, Source
from kubepreempt.cluster import Cluster, build_cluster
from kubepreempt.manifests import Documents, RawObject, check_object

FOO = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}
BAR = {"matchExpressions": [{"key": "bar", "operator": "Exists"}]}


def node(name: str, cpu: str = "4", memory: str = "8Gi", pods: str = "110", labels=None,
         taints=None, unschedulable: bool = False, **extra: str) -> dict[str, Any]:
    """A Node manifest."""
    alloc = {"cpu": cpu, "memory": memory, "pods": pods, **extra}
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                                  **(labels or {})}},
            "spec": spec, "status": {"allocatable": alloc}}


def pod(name: str, cpu: str | None = None, memory: str | None = None, *, ns: str = "default",
        node_name: str | None = None, priority: int | None = None, labels=None,
        limits: dict | None = None, start: str | None = None, spec_extra=None,
        meta_extra=None, status_extra=None, **requests: str) -> dict[str, Any]:
    """A Pod manifest with one container."""
    req = {k.replace("_", "-"): v for k, v in requests.items()}
    if cpu is not None:
        req["cpu"] = cpu
    if memory is not None:
        req["memory"] = memory
    resources: dict[str, Any] = {}
    if req:
        resources["requests"] = req
    if limits:
        resources["limits"] = limits
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "x", "resources": resources}]}
    if node_name:
        spec["nodeName"] = node_name
    if priority is not None:
        spec["priority"] = priority
    spec.update(spec_extra or {})
    status: dict[str, Any] = {}
    if start:
        status["startTime"] = start
    status.update(status_extra or {})
    meta = {"name": name, "namespace": ns, "labels": labels or {}}
    meta.update(meta_extra or {})
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


def priority_class(name: str, value: int, global_default: bool = False,
                   policy: str | None = None) -> dict[str, Any]:
    """A PriorityClass manifest."""
    out: dict[str, Any] = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                           "metadata": {"name": name}, "value": value,
                           "globalDefault": global_default}
    if policy:
        out["preemptionPolicy"] = policy
    return out


def pdb(name: str, match_labels: dict, allowed: int | None = None, ns: str = "default",
        min_available=None) -> dict[str, Any]:
    """A policy/v1 PodDisruptionBudget manifest."""
    out: dict[str, Any] = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                           "metadata": {"name": name, "namespace": ns},
                           "spec": {"selector": {"matchLabels": match_labels}}, "status": {}}
    if min_available is not None:
        out["spec"]["minAvailable"] = min_available
    if allowed is not None:
        out["status"]["disruptionsAllowed"] = allowed
    return out


def spread(max_skew: int, key: str, when: str = "DoNotSchedule", selector: Any = FOO, *,
           min_domains: int | None = None, nap: str | None = None, ntp: str | None = None,
           match_label_keys: Sequence[str] = ()) -> dict[str, Any]:
    """``SpreadConstraint(maxSkew, key, when, selector, minDomains, nap, ntp, keys)``."""
    out: dict[str, Any] = {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": when}
    if selector is not None:
        out["labelSelector"] = selector
    if min_domains is not None:
        out["minDomains"] = min_domains
    if nap:
        out["nodeAffinityPolicy"] = nap
    if ntp:
        out["nodeTaintsPolicy"] = ntp
    if match_label_keys:
        out["matchLabelKeys"] = list(match_label_keys)
    return out


def docs_of(*objects: dict[str, Any]) -> Documents:
    """Documents holding ``objects`` (in order)."""
    docs = Documents()
    for i, obj in enumerate(objects):
        raw = RawObject(obj["kind"], obj, Source("test.yaml", i))
        try:  # as the loader marks them: valid bound pods then load as LazyPods
            check_object(raw)
        except InputError:
            docs.add(raw)
        else:
            docs.add(raw._replace(checked=True))
    return docs


def cluster_of(*objects: dict[str, Any]) -> Cluster:
    """A cluster snapshot built from manifests, without warnings."""
    return build_cluster(docs_of(*objects), warn=False)


def reference_preemption(monkeypatch: Any) -> None:
    """Make every DefaultPreemption evaluator take its reference path (``fast=False``:
    ``select_victims_on_node`` node by node, as upstream's SelectVictimsOnNode) instead of
    the vectorised one, so that a rule test guards both implementations."""
    from kubepreempt.scheduler.preemption import Evaluator

    real_init = Evaluator.__init__

    def init(self: Evaluator, *args: Any, **kwargs: Any) -> None:
        real_init(self, *args, **kwargs)
        self.fast = False

    monkeypatch.setattr(Evaluator, "__init__", init)
