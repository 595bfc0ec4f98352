"""A fast yes for the common pod, for speed only: :func:`known_valid_pod` accepts a pod
whose every checked value is of the expected type and is, or is made of, values the full
validation (:mod:`kubepreempt.api.object_validation`) already found valid. It never
refuses: False leaves the decision, and the wording of the errors, to the full rules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubepreempt.api.core_validation import (
    KNOWN_VALID_RESOURCES,
    KNOWN_VALID_TOLERATIONS,
    resources_key,
    tolerations_key,
)
from kubepreempt.api.fieldcheck import INT64
from kubepreempt.api.metadata_validation import KNOWN_VALID_LABELS
from kubepreempt.apimachinery.validation import (
    DNS1123_SUBDOMAIN_MAX_LENGTH,
    KNOWN_DNS1123_LABELS,
    match_dns1123_subdomain_format,
)

# Spec sections the fast acceptor leaves to the full validation (tolerations it checks by
# content against the lists already found valid).
_FULL_CHECK_SECTIONS = frozenset({"initContainers", "overhead", "resources", "nodeSelector",
                                  "affinity", "topologySpreadConstraints"})
_PROTOCOLS = (None, "TCP", "UDP", "SCTP")
_POLICIES = (None, "PreemptLowerPriority", "Never")


def _known_valid_containers(containers: Any) -> bool:
    """:func:`known_valid_pod` for ``spec.containers``."""
    if type(containers) is not list:
        return False
    names = set()
    for ctr in containers:
        if type(ctr) is not dict:
            return False
        ctr_name = ctr.get("name")
        if ctr_name is not None:
            if type(ctr_name) is not str or ctr_name in names or (
                    ctr_name and ctr_name not in KNOWN_DNS1123_LABELS):
                return False
            if ctr_name:
                names.add(ctr_name)
        res = ctr.get("resources")
        if res is not None and resources_key(res) not in KNOWN_VALID_RESOURCES:
            return False
        ports = ctr.get("ports")
        if ports is not None and (type(ports) is not list or not all(
                type(port) is dict and _known_valid_port(port) for port in ports)):
            return False
    return True


def _known_valid_port(port: dict) -> bool:
    """:func:`known_valid_pod` for one container port."""
    host = port.get("hostPort")
    if host is not None and (type(host) is not int or not 0 <= host <= 65535):
        return False
    return port.get("protocol") in _PROTOCOLS


def known_valid_pod(body: Mapping[str, Any]) -> bool:
    """True when ``body`` is certainly valid: the common pod, whose every checked value is
    of the expected type and is, or is made of, values already found valid (names by one
    regex match). False says nothing: the full validation decides and words the errors.
    A 50,000-pod dump is validated in half the time (tests/test_validation_fast.py checks
    that it never accepts what :func:`pod_errors` refuses)."""
    meta, spec = body.get("metadata"), body.get("spec")
    if type(meta) is not dict or type(spec) is not dict:
        return False
    name, namespace = meta.get("name"), meta.get("namespace")
    if type(name) is not str or len(name) > DNS1123_SUBDOMAIN_MAX_LENGTH or (
            not match_dns1123_subdomain_format(name)):
        return False
    if namespace is not None and (type(namespace) is not str or (
            namespace and namespace not in KNOWN_DNS1123_LABELS)):
        return False
    labels = meta.get("labels")
    if labels is not None:
        if type(labels) is not dict:
            return False
        for pair in labels.items():
            if type(pair[1]) is not str or pair not in KNOWN_VALID_LABELS:
                return False
    annotations = meta.get("annotations")
    if annotations is not None:
        if type(annotations) is not dict:
            return False
        for key, value in annotations.items():
            if type(key) is not str or type(value) is not str:
                return False
    if not _FULL_CHECK_SECTIONS.isdisjoint(spec):
        return False
    tolerations = spec.get("tolerations")
    if tolerations is not None and tolerations_key(tolerations) not in KNOWN_VALID_TOLERATIONS:
        return False
    containers = spec.get("containers")
    if containers is not None and not _known_valid_containers(containers):
        return False
    priority = spec.get("priority")
    if priority is not None and (type(priority) is not int
                                 or not -2147483648 <= priority <= 2147483647):
        return False
    grace = spec.get("terminationGracePeriodSeconds")
    if grace is not None and (type(grace) is not int or not 0 <= grace <= INT64[1]):
        return False
    for value in (spec.get("nodeName"), spec.get("priorityClassName"),
                  spec.get("schedulerName")):
        if value is not None and type(value) is not str:
            return False
    return spec.get("preemptionPolicy") in _POLICIES
