"""Kueue's job integrations: the Workload a queued ``batch/v1`` Job or JobSet stands for.

Kueue's webhook suspends a Job (or a ``jobset.x-k8s.io`` JobSet) labelled
``kueue.x-k8s.io/queue-name`` and its reconciler creates one Workload for it, with the
pod sets the integration's ``PodSets()`` gives:

* Job (``pkg/controller/jobs/job``): one pod set ``main`` of ``podsCount()`` =
  ``parallelism`` (default 1), capped by ``completions`` when that is smaller;
* JobSet (``pkg/controller/jobs/jobset``): one pod set per replicated job, named after
  it, of ``replicas`` x ``PodsCountPerReplica`` (the job template's ``parallelism``,
  capped by its ``completions``) pods of the job template's pod template.

The queue comes from the label; the priority from the ``kueue.x-k8s.io/priority-class``
label (a WorkloadPriorityClass) or else the first pod set's template
``priorityClassName`` (``ExtractPriority``). ``kubepreempt kueue`` and the simulator
both derive it here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubepreempt.api.errors import InputError
from kubepreempt.kueue.objects import PC_SOURCE, WPC_SOURCE
from kubepreempt.manifests import RawObject

QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_CLASS_LABEL = "kueue.x-k8s.io/priority-class"
# The kinds whose queued objects are Workloads to Kueue, and their API groups.
JOB_KINDS = {"Job": "batch", "JobSet": "jobset.x-k8s.io"}
# The prefix of the derived Workload's name (upstream: the lower-case kind, plus a hash).
_NAME_PREFIX = {"Job": "job", "JobSet": "jobset"}


@dataclass(frozen=True, slots=True)
class JobPodSet:
    """One pod set of a job: its name, pod count and pod template (metadata + spec)."""

    name: str
    count: int
    template: dict[str, Any]


def is_queued_job(obj: RawObject) -> bool:
    """A Job or JobSet Kueue manages: it carries the queue-name label."""
    if obj.kind not in JOB_KINDS:
        return False
    labels = (obj.body.get("metadata") or {}).get("labels")
    return isinstance(labels, dict) and bool(labels.get(QUEUE_NAME_LABEL))


def _count(spec: dict[str, Any], field: str, default: int | None, obj: RawObject,
           where: str) -> int | None:
    value = spec.get(field, default)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InputError(f"{where}{field} {value!r} is not a non-negative integer",
                         obj.source, obj.kind, f"{obj.namespace}/{obj.name}")
    return value


def _pods_count(job_spec: dict[str, Any], obj: RawObject, where: str) -> int:
    """``podsCount()`` / ``PodsCountPerReplica``: parallelism, capped by completions."""
    parallelism = _count(job_spec, "parallelism", 1, obj, where) or 0
    completions = _count(job_spec, "completions", None, obj, where)
    return parallelism if completions is None else min(parallelism, completions)


def job_parallelism(obj: RawObject) -> int:
    """A Job's pod count, as Kueue's Job integration computes it (``podsCount()``)."""
    return _pods_count(obj.body.get("spec") or {}, obj, "spec.")


def job_pod_sets(obj: RawObject) -> list[JobPodSet]:
    """The pod sets of the Workload for the Job or JobSet ``obj`` (``PodSets()``)."""
    spec = obj.body.get("spec") or {}
    if obj.kind == "Job":
        return [JobPodSet("main", job_parallelism(obj), spec.get("template") or {})]
    out = []
    replicated = spec.get("replicatedJobs")
    if not isinstance(replicated, list) or not replicated:
        raise InputError("spec.replicatedJobs must list at least one replicated job",
                         obj.source, obj.kind, f"{obj.namespace}/{obj.name}")
    for i, rj in enumerate(replicated):
        where = f"spec.replicatedJobs[{i}]."
        if not isinstance(rj, dict) or not rj.get("name"):
            raise InputError(f"{where}name is required", obj.source, obj.kind,
                             f"{obj.namespace}/{obj.name}")
        replicas = _count(rj, "replicas", 1, obj, where) or 0
        job_spec = (rj.get("template") or {}).get("spec") or {}
        per_replica = _pods_count(job_spec, obj, f"{where}template.spec.")
        out.append(JobPodSet(str(rj["name"]), replicas * per_replica,
                             job_spec.get("template") or {}))
    return out


def workload_name(job_name: str, kind: str = "Job") -> str:
    """The derived Workload's name: ``job-NAME`` / ``jobset-NAME`` (upstream adds a hash;
    kubepreempt keeps it readable)."""
    return f"{_NAME_PREFIX[kind]}-{job_name}"


def job_workload_body(obj: RawObject, name: str | None = None) -> dict[str, Any]:
    """The Workload manifest Kueue creates for the queued Job or JobSet ``obj`` (named
    after ``name``, default the object's own name)."""
    name = name or obj.name
    pod_sets = job_pod_sets(obj)
    labels = (obj.body.get("metadata") or {}).get("labels") or {}
    wspec: dict[str, Any] = {
        "queueName": labels[QUEUE_NAME_LABEL],
        "podSets": [{"name": ps.name, "count": ps.count, "template": ps.template}
                    for ps in pod_sets]}
    wpc = labels.get(PRIORITY_CLASS_LABEL)
    pc = next((c for ps in pod_sets
               if (c := (ps.template.get("spec") or {}).get("priorityClassName"))), "")
    if wpc:
        wspec.update(priorityClassName=wpc, priorityClassSource=WPC_SOURCE)
    elif pc:
        wspec.update(priorityClassName=pc, priorityClassSource=PC_SOURCE)
    wl_name = workload_name(name, obj.kind)
    return {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload",
            "metadata": {"name": wl_name, "namespace": obj.namespace or "default",
                         "uid": wl_name},
            "spec": wspec}
