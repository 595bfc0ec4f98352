"""PodMetrics parsing: keys, sources and one-line errors, pinned.

A ``metrics.k8s.io/v1beta1`` PodMetrics is namespaced; an object without
``metadata.namespace`` is in ``default`` (as ``kubectl`` sends it). Its ``containers`` may be
absent (metrics-server lists none for a pod without running containers): no usage.
"""

from __future__ import annotations

import pytest

from kubepreempt.api.errors import InputError, Source
from kubepreempt.kubelet.metrics import parse_one, parse_pod_metrics
from kubepreempt.manifests import RawObject

API = "metrics.k8s.io/v1beta1"
WHERE = Source("m.yaml", 3)


def _error(body: dict) -> str:
    with pytest.raises(InputError) as exc:
        parse_one(body, WHERE)
    return str(exc.value)


def test_namespace_defaults_and_no_containers_is_no_usage() -> None:
    pu = parse_one({"apiVersion": API, "metadata": {"name": "p"}}, WHERE)
    assert (pu.key, pu.usage, pu.source) == ("default/p", {}, WHERE)


def test_each_error_names_the_object_and_what_is_wrong() -> None:
    head = "m.yaml, document 4: PodMetrics default/p: "
    named = {"name": "p"}
    assert _error({"metadata": {}}) == "m.yaml, document 4: PodMetrics: object has no metadata.name"
    assert _error({"apiVersion": "v1", "metadata": named}) == (
        head + "apiVersion 'v1' is not metrics.k8s.io/v1beta1")
    assert _error({"metadata": named, "containers": {"a": 1}}) == (
        head + "containers must be a list")
    assert _error({"metadata": named, "containers": ["x"]}) == (
        head + "containers[0] must be a mapping")
    bad = _error({"metadata": named, "containers": [{"usage": {"memory": "lots"}}]})
    assert bad.startswith(head) and "containers[0].usage" in bad


def test_list_keeps_each_source_and_rejects_a_second_object_for_a_pod() -> None:
    body = {"apiVersion": API, "kind": "PodMetrics", "metadata": {"name": "p", "namespace": "ns"}}
    first, second = Source("m.yaml", 0), Source("m.yaml", 1)
    got = parse_pod_metrics([RawObject("PodMetrics", body, first)])
    assert got["ns/p"].source == first
    with pytest.raises(InputError) as exc:
        parse_pod_metrics([RawObject("PodMetrics", body, first),
                           RawObject("PodMetrics", body, second)])
    assert str(exc.value) == (
        "m.yaml, document 2: PodMetrics ns/p: duplicate PodMetrics for the same pod")
