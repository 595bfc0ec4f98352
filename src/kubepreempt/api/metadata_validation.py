"""Object metadata and label validation (``ValidateObjectMeta``'s name, namespace,
labels and annotations; metav1 ``ValidateLabels`` and ``ValidateLabelName``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kubepreempt.api.fieldcheck import Checker
from kubepreempt.apimachinery.field import invalid
from kubepreempt.apimachinery.validation import (
    dns1123_label,
    dns1123_subdomain,
    label_value,
    qualified_name,
)


def label_name(c: Checker, key: str, path: str) -> None:
    """``ValidateLabelName``."""
    for msg in qualified_name(key):
        c.add(invalid(path, key, msg))


# (key, value) label pairs already found valid: a cluster repeats a few hundred pairs over
# all its pods, so most label maps are checked with set lookups alone.
KNOWN_VALID_LABELS: set[tuple[str, str]] = set()


def labels(c: Checker, raw: Any, path: str) -> None:
    """``ValidateLabels``: every key a qualified name, every value a label value."""
    if type(raw) is dict:
        known = KNOWN_VALID_LABELS
        for pair in raw.items():
            if type(pair[1]) is not str or pair not in known:  # (lists are unhashable)
                break
        else:
            return  # also an empty map
    for k, v in c.string_map(raw, path).items():
        before = len(c.errors)
        label_name(c, k, path)
        for msg in label_value(v):
            c.add(invalid(path, v, msg))
        if len(c.errors) == before and type(raw.get(k)) is str:
            if len(KNOWN_VALID_LABELS) >= 65536:
                KNOWN_VALID_LABELS.clear()
            KNOWN_VALID_LABELS.add((k, v))


def metadata(c: Checker, meta: Mapping[str, Any], namespaced: bool,
             name_check: Callable[[str], tuple[str, ...]] = dns1123_subdomain) -> None:
    """``ValidateObjectMeta``: the name (a DNS subdomain unless ``name_check`` says
    otherwise), the namespace of a namespaced kind, labels, annotations' shape."""
    name = meta.get("name")
    if isinstance(name, str) and name:
        for msg in name_check(name):
            c.add(invalid("metadata.name", name, msg))
    ns = meta.get("namespace")
    if namespaced and isinstance(ns, str) and ns:
        for msg in dns1123_label(ns):
            c.add(invalid("metadata.namespace", ns, msg))
    labels(c, meta.get("labels"), "metadata.labels")
    c.string_map(meta.get("annotations"), "metadata.annotations")
