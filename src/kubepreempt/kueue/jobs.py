"""Kueue's Job integration: the Workload a queued ``batch/v1`` Job stands for.

Kueue's webhook suspends a Job labelled ``kueue.x-k8s.io/queue-name`` and its job
controller creates one Workload for it: one pod set ``main`` of ``parallelism`` pods of
the Job's template, the queue from the label, the priority from the
``kueue.x-k8s.io/priority-class`` label (a WorkloadPriorityClass) or else the template's
``priorityClassName``. ``kubepreempt kueue`` and the simulator both derive it here.
"""

from __future__ import annotations

from typing import Any

from kubepreempt.api.errors import InputError
from kubepreempt.kueue.objects import PC_SOURCE, WPC_SOURCE
from kubepreempt.manifests import RawObject

QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_CLASS_LABEL = "kueue.x-k8s.io/priority-class"


def is_queued_job(obj: RawObject) -> bool:
    """A Job Kueue manages: it carries the queue-name label."""
    labels = (obj.body.get("metadata") or {}).get("labels")
    return isinstance(labels, dict) and bool(labels.get(QUEUE_NAME_LABEL))


def job_parallelism(obj: RawObject) -> int:
    """``spec.parallelism`` (default 1), checked."""
    parallelism = (obj.body.get("spec") or {}).get("parallelism", 1)
    if not isinstance(parallelism, int) or isinstance(parallelism, bool) or parallelism < 0:
        raise InputError(f"spec.parallelism {parallelism!r} is not a non-negative integer",
                         obj.source, "Job", f"{obj.namespace}/{obj.name}")
    return parallelism


def workload_name(job_name: str) -> str:
    """The derived Workload's name (upstream adds a hash; kubepreempt keeps it readable)."""
    return f"job-{job_name}"


def job_workload_body(obj: RawObject, name: str | None = None) -> dict[str, Any]:
    """The Workload manifest Kueue creates for the queued Job ``obj`` (named after
    ``name``, default the Job's own name)."""
    name = name or obj.name
    spec = obj.body.get("spec") or {}
    template = spec.get("template") or {}
    labels = (obj.body.get("metadata") or {}).get("labels") or {}
    wspec: dict[str, Any] = {
        "queueName": labels[QUEUE_NAME_LABEL],
        "podSets": [{"name": "main", "count": job_parallelism(obj), "template": template}]}
    wpc = labels.get(PRIORITY_CLASS_LABEL)
    pc = (template.get("spec") or {}).get("priorityClassName")
    if wpc:
        wspec.update(priorityClassName=wpc, priorityClassSource=WPC_SOURCE)
    elif pc:
        wspec.update(priorityClassName=pc, priorityClassSource=PC_SOURCE)
    return {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
            "metadata": {"name": workload_name(name),
                         "namespace": obj.namespace or "default",
                         "uid": workload_name(name)},
            "spec": wspec}
