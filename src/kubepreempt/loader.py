"""Loading: manifests into a :class:`~kubepreempt.cluster.Cluster`.

:func:`build_cluster` parses every kind the scheduler reads (``SCHEDULER_KINDS``), in
dependency order: PriorityClasses and RuntimeClasses before the pods they resolve,
nodes (sorted by name) before the pods bound to them, pods before the PDBs counting
them. Errors name the object (:class:`~kubepreempt.api.errors.InputError`). Warnings
are returned, not printed: the commands print them where they always have.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TextIO

from kubepreempt.admission.quota import QuotaAdmission
from kubepreempt.api.errors import InputError
from kubepreempt.api.objects import Namespace, Node, Pod, parse_node, parse_pdb, parse_pod
from kubepreempt.api.priority import PriorityClass, PriorityResolver, parse_priority_class
from kubepreempt.api.runtimeclass import RuntimeClassAdmission, parse_runtime_class
from kubepreempt.api.spread_sources import SOURCE_KINDS
from kubepreempt.cluster_state import POD_CREATORS, SCHEDULER_CONFIG_KIND, SCHEDULER_KINDS, Cluster
from kubepreempt.manifests import Documents, paused_gc, reading
from kubepreempt.scheduler.config import parse_scheduler_config
from kubepreempt.snapshot import pdb_disruptions_allowed

__all__ = ["POD_CREATORS", "SCHEDULER_KINDS", "build_cluster", "build_with_warnings",
           "print_warnings"]


def build_with_warnings(docs: Documents, extra_kinds: Iterable[str] = ()
                        ) -> tuple[Cluster, list[str]]:
    """The cluster of loaded documents, and the warning lines loading it gave (in order;
    the caller prints them, :func:`print_warnings`).

    Kinds outside the scheduler's (and ``extra_kinds``) are skipped with one warning line.
    Pods that finished (phase Succeeded/Failed) are ignored, as the scheduler's informer
    ignores them, with one warning line; ResourceQuota admission keeps them
    (``cluster.quota.finished``: they still count for ``count/pods``). Pods not yet
    admitted get their RuntimeClass's overhead and scheduling (:mod:`kubepreempt.api.runtimeclass`).
    """
    with paused_gc(freeze=True):
        return _build_cluster(docs, extra_kinds)


def print_warnings(warnings: Iterable[str], stream: TextIO | None = None) -> None:
    """Each warning line on ``stream`` (stderr)."""
    for line in warnings:
        print(line, file=stream or sys.stderr)


def build_cluster(docs: Documents, warn: bool = True, extra_kinds: Iterable[str] = ()) -> Cluster:
    """:func:`build_with_warnings`, printing the warnings on stderr when ``warn``."""
    cluster, warnings = build_with_warnings(docs, extra_kinds)
    if warn:
        print_warnings(warnings)
    return cluster


def _build_cluster(docs: Documents, extra_kinds: Iterable[str]) -> tuple[Cluster, list[str]]:
    classes: list[PriorityClass] = []
    for o in docs.of("PriorityClass"):
        with reading(o):
            classes.append(parse_priority_class(o.body, o.source))
    runtime_classes = []
    for o in docs.of("RuntimeClass"):
        with reading(o):
            runtime_classes.append(parse_runtime_class(o.body, o.source))
    cluster = Cluster(priority=PriorityResolver(classes),
                      runtime_classes=RuntimeClassAdmission(runtime_classes),
                      quota=QuotaAdmission.from_documents(docs))
    for o in docs.of("Namespace"):
        meta = o.body.get("metadata") or {}
        labels = {str(k): str(v) for k, v in (meta.get("labels") or {}).items()}
        labels.setdefault("kubernetes.io/metadata.name", o.name)
        cluster.namespaces[o.name] = Namespace(o.name, labels)
    nodes: list[Node] = []
    for o in docs.of("Node"):
        with reading(o):
            nodes.append(parse_node(o.body, o.source))
    nodes.sort(key=lambda n: n.name)
    cluster.add_nodes(nodes)
    finished = 0
    all_pods: list[Pod] = []
    bound: list[Pod] = []
    seen: set[str] = set()
    resolve = cluster.priority.resolve
    admit = cluster.runtime_classes.admit
    node_index = cluster.node_index
    o = None
    try:  # one handler for the loop: a `with reading(o)` per pod costs ~1 us
        for o in docs.of("Pod"):
            # A pod that passed apiserver validation (manifests.check_object) or came from
            # an apiserver (RawObject.checked), bound and of the common shape, parses its
            # rarely read fields lazily; not once RuntimeClass admission merged fields
            # into it (its tolerations were never validated), nor when a sweep edit or
            # code built it: their errors are reported while loading.
            body = o.body
            spec = body.get("spec")
            if type(spec) is not dict or spec.get("runtimeClassName"):
                body = admit(body, o.source)
            pod = parse_pod(body, o.source, resolve, lazy=o.checked and body is o.body)
            if pod.phase in ("Succeeded", "Failed"):
                finished += 1
                cluster.quota.finished.append(pod)  # quota still charges its count/pods
                continue
            key = f"{pod.namespace}/{pod.name}"  # Pod.key
            if key in seen:
                raise InputError("duplicate object", pod.source, "Pod", key)
            seen.add(key)
            all_pods.append(pod)
            if pod.node_name:
                if pod.node_name not in node_index:  # the error Cluster.bind would raise
                    raise InputError(f"bound to node {pod.node_name!r}, which is not in the "
                                     "input", pod.source, "Pod", key)
                bound.append(pod)
            else:
                cluster.add_pending(pod)
    except Exception as exc:
        assert o is not None
        with reading(o):
            raise exc
    cluster.bind_many(bound)  # one batch: per-pod numpy row updates dominated loading
    configs = docs.of(SCHEDULER_CONFIG_KIND)
    if len(configs) > 1:
        raise InputError(f"more than one {SCHEDULER_CONFIG_KIND} in the input",
                         configs[1].source, SCHEDULER_CONFIG_KIND)
    if configs:
        cluster.scheduler_config = parse_scheduler_config(configs[0].body, configs[0].source)
    for kind in SOURCE_KINDS:
        for o in docs.of(kind):
            cluster.spread_sources.add(kind, o.body, o.source)
    # Kinds whose controllers create pods go last: a Deployment's name wins over the
    # Service of the same name.
    for kind, objs in sorted(docs.by_kind.items(), key=lambda kv: kv[0] in POD_CREATORS):
        if kind != "Pod":
            cluster.other_objects.update((f"{o.namespace}/{o.name}", (kind, o.source))
                                         for o in objs if o.namespace)
    for o in docs.of("PodDisruptionBudget"):
        with reading(o):
            pdb = parse_pdb(o.body, o.source)
        pdb.disruptions_allowed = pdb_disruptions_allowed(pdb, all_pods)
        cluster.pdbs.append(pdb)
    warnings: list[str] = []
    unused = docs.unused_warning((*SCHEDULER_KINDS, *extra_kinds))
    if unused is not None:
        warnings.append(unused)
    if finished:
        warnings.append(f"warning: ignored {finished} finished pod(s) (phase Succeeded/Failed), "
                        "as the scheduler does")
    return cluster, warnings
