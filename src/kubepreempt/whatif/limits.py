"""How many pods a new workload asks for, read before it is expanded, and the cap on it.

A mistyped replica count (``replicas: 999999``) that the apiserver accepts would otherwise
mean minutes of scheduling cycles and gigabytes of pods before any answer: ``schedule -f``
and ``advise -f`` refuse a workload above :data:`DEFAULT_MAX_PODS` pods (``--max-pods``
raises it) before reading the cluster.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubepreempt.api.errors import InputError
from kubepreempt.manifests import Documents

#: Pods one ``-f`` workload may ask for unless ``--max-pods`` says more.
DEFAULT_MAX_PODS = 100_000

# Kinds whose pod count is spec.replicas (default 1).
_REPLICATED = ("Deployment", "ReplicaSet", "StatefulSet")


def _count(raw: Any, default: int) -> int:
    """A count field; a malformed one counts as 0 here (expansion reports it)."""
    if raw is None:
        return default
    return raw if isinstance(raw, int) and not isinstance(raw, bool) and raw > 0 else 0


def _job_pods(spec: Any) -> int:
    """``min(parallelism, completions)``, none when suspended (the Job controller)."""
    if not isinstance(spec, Mapping) or spec.get("suspend"):
        return 0
    parallelism = _count(spec.get("parallelism"), 1)
    completions = spec.get("completions")
    return parallelism if completions is None else min(parallelism, _count(completions, 1))


def requested_pods(kind: str, body: Mapping[str, Any]) -> int:
    """Pods the controller of ``body`` creates at once: replicas for Deployments,
    ReplicaSets and StatefulSets, ``min(parallelism, completions)`` for a Job (a
    CronJob's job template); 0 for a DaemonSet (one per node: the cluster bounds it)."""
    spec = body.get("spec")
    if not isinstance(spec, Mapping):
        return 1 if kind in _REPLICATED else 0
    if kind in _REPLICATED:
        return _count(spec.get("replicas"), 1)
    if kind == "Job":
        return _job_pods(spec)
    if kind == "CronJob":
        template = spec.get("jobTemplate")
        return _job_pods(template.get("spec") if isinstance(template, Mapping) else None)
    return 0


def check_pod_limit(docs: Documents, kinds: tuple[str, ...], max_pods: int) -> None:
    """Refuse (an :class:`InputError` naming the workload and its count) a workload of
    ``docs`` that asks for more than ``max_pods`` pods."""
    for kind in kinds:
        for o in docs.of(kind):
            n = requested_pods(kind, o.body)
            if n > max_pods:
                raise InputError(
                    f"asks for {n:,} pods, more than --max-pods {max_pods:,}; placing them "
                    f"one by one would take long and much memory (check the count, or "
                    f"raise --max-pods)", o.source, kind,
                    f"{o.namespace or 'default'}/{o.name}")
