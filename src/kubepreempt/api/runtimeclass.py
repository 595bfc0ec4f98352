"""RuntimeClasses (node.k8s.io/v1) and the apiserver's RuntimeClass admission plugin.

A pod created through the apiserver that names ``spec.runtimeClassName`` is mutated by the
RuntimeClass admission plugin (``plugin/pkg/admission/runtimeclass``): it gets the class's
``overhead.podFixed`` as ``spec.overhead``, the class's ``scheduling.nodeSelector`` merged
into its node selector (a key with a different value rejects the pod) and the class's
``scheduling.tolerations`` merged into its tolerations (``MergeTolerations``). A class that
does not exist rejects the pod.

Pods read from a cluster dump were admitted already. :meth:`RuntimeClassAdmission.admit`
therefore mutates only pods that show no sign of admission: no ``metadata.uid`` (every
stored object has one) and no ``spec.overhead`` (admission sets it for a class that has
one). Such a hand-written pod naming an unknown class is bad input, as the apiserver
would reject it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kubepreempt.api.errors import InputError, Source
from kubepreempt.api.fields import as_mapping as _mapping
from kubepreempt.api.quantity import resource_list

KIND = "RuntimeClass"


@dataclass(frozen=True, slots=True)
class RuntimeClass:
    """A RuntimeClass: its handler, pod overhead and scheduling constraints."""

    name: str
    handler: str
    overhead: Mapping[str, Any] | None = None  # overhead.podFixed as written
    node_selector: Mapping[str, str] = field(default_factory=dict)
    tolerations: tuple[Mapping[str, Any], ...] = ()
    has_scheduling: bool = False
    source: Source = field(default_factory=Source)


def parse_runtime_class(raw: Mapping[str, Any], source: Source) -> RuntimeClass:
    """Build and validate a RuntimeClass."""
    meta = raw.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else None
    if not name:
        raise InputError("object has no metadata.name", source, KIND)
    try:
        handler = raw.get("handler")
        if not handler or not isinstance(handler, str):
            raise ValueError("handler must be a non-empty string")
        overhead = raw.get("overhead")
        pod_fixed = _mapping(overhead, "overhead").get("podFixed")
        if pod_fixed is not None:
            resource_list(pod_fixed, "overhead.podFixed")  # validates the quantities
        scheduling = raw.get("scheduling")
        sched = _mapping(scheduling, "scheduling")
        selector = {str(k): "" if v is None else str(v)
                    for k, v in _mapping(sched.get("nodeSelector"),
                                         "scheduling.nodeSelector").items()}
        tolerations = sched.get("tolerations") or []
        if not isinstance(tolerations, list) or not all(isinstance(t, Mapping)
                                                        for t in tolerations):
            raise ValueError("scheduling.tolerations must be a list of mappings")
    except ValueError as exc:
        raise InputError(str(exc), source, KIND, str(name)) from None
    return RuntimeClass(str(name), handler, pod_fixed, selector, tuple(tolerations),
                        scheduling is not None, source)


# ---- MergeTolerations (pkg/util/tolerations) -------------------------------------------
def _toleration_key(t: Mapping[str, Any]) -> tuple:
    # apiequality.Semantic.DeepEqual on the fields a toleration has.
    return (str(t.get("key") or ""), str(t.get("operator") or ""), str(t.get("value") or ""),
            str(t.get("effect") or ""), t.get("tolerationSeconds"))


def _is_superset(ss: Mapping[str, Any], t: Mapping[str, Any]) -> bool:
    """``isSuperset``: ``ss`` tolerates every taint ``t`` tolerates."""
    if _toleration_key(ss) == _toleration_key(t):
        return True
    ss_key, ss_op = str(ss.get("key") or ""), str(ss.get("operator") or "")
    if str(t.get("key") or "") != ss_key and (ss_key != "" or ss_op != "Exists"):
        return False
    ss_effect, t_effect = str(ss.get("effect") or ""), str(t.get("effect") or "")
    if t_effect != ss_effect and ss_effect != "":
        return False
    if ss_effect == "NoExecute" and ss.get("tolerationSeconds") is not None:
        t_secs = t.get("tolerationSeconds")
        if t_secs is None or t_secs > ss["tolerationSeconds"]:
            return False
    if ss_op in ("Equal", ""):
        return t.get("operator") == "Equal" and str(t.get("value") or "") == str(
            ss.get("value") or "")
    return ss_op == "Exists"


def merge_tolerations(first: Iterable[Mapping[str, Any]],
                      second: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """``MergeTolerations``: both lists, without a toleration another one covers."""
    every = [*first, *second]
    merged: list[Mapping[str, Any]] = []
    for i, t in enumerate(every):
        if any(_is_superset(m, t) for m in merged):
            continue
        if any(_toleration_key(t) != _toleration_key(t2) and _is_superset(t2, t)
               for t2 in every[i + 1:]):
            continue  # a later, wider toleration covers it
        merged.append(t)
    return merged


class RuntimeClassAdmission:
    """The RuntimeClass admission plugin over the RuntimeClasses of the input."""

    def __init__(self, classes: Iterable[RuntimeClass] = ()) -> None:
        self.classes = {rc.name: rc for rc in classes}

    @staticmethod
    def pending_admission(body: Mapping[str, Any]) -> bool:
        """True for a pod that names a RuntimeClass and shows no sign of admission."""
        spec = body.get("spec")
        meta = body.get("metadata")
        if not isinstance(spec, Mapping) or not spec.get("runtimeClassName"):
            return False
        if isinstance(meta, Mapping) and meta.get("uid"):
            return False
        return spec.get("overhead") is None

    def admit(self, body: Mapping[str, Any], source: Source) -> Mapping[str, Any]:
        """The pod as the apiserver would store it (``body`` itself when nothing changes)."""
        spec = body.get("spec")
        if type(spec) is dict and not spec.get("runtimeClassName"):
            return body  # nearly every pod: no RuntimeClass named
        if not self.pending_admission(body):
            return body
        spec = body["spec"]
        meta = body.get("metadata") if isinstance(body.get("metadata"), Mapping) else {}
        key = f"{meta.get('namespace') or 'default'}/{meta.get('name') or ''}"
        name = str(spec["runtimeClassName"])
        rc = self.classes.get(name)
        if rc is None:
            raise InputError(f'pod rejected: RuntimeClass "{name}" not found (as the '
                             "apiserver's RuntimeClass admission does; add the RuntimeClass "
                             "objects, e.g. kubectl get runtimeclasses -o yaml)",
                             source, "Pod", key)
        new_spec = dict(spec)
        if rc.overhead is not None:
            new_spec["overhead"] = dict(rc.overhead)
        if rc.has_scheduling:
            try:
                pod_selector = _mapping(spec.get("nodeSelector"), "spec.nodeSelector")
                pod_tolerations = spec.get("tolerations") or []
                if not isinstance(pod_tolerations, list) or not all(
                        isinstance(t, Mapping) for t in pod_tolerations):
                    raise ValueError("spec.tolerations must be a list of mappings")
            except ValueError as exc:
                raise InputError(str(exc), source, "Pod", key) from None
            selector = dict(pod_selector)
            for k, v in rc.node_selector.items():
                if k in selector and str(selector[k]) != v:
                    raise InputError(
                        f"conflict: runtimeClass.scheduling.nodeSelector[{k}] = {v}; "
                        f"pod.spec.nodeSelector[{k}] = {selector[k]}", source, "Pod", key)
                selector[k] = v
            if spec.get("nodeSelector") is not None or selector:
                new_spec["nodeSelector"] = selector
            new_spec["tolerations"] = merge_tolerations(pod_tolerations, rc.tolerations)
        return {**body, "spec": new_spec}
