"""Which pods a ResourceQuota charges: ``QuotaV1Pod`` and ``PodUsageFunc`` of upstream
``pkg/quota/v1/evaluator/core/pods.go``.

``PodUsageFunc`` always counts ``count/pods``; everything else (``pods``, cpu, memory,
...) only while ``QuotaV1Pod`` says the pod is charged: not ``Failed``/``Succeeded``, and,
for a pod being deleted, not past ``metadata.deletionTimestamp +
metadata.deletionGracePeriodSeconds`` (``now.After(deletionTime.Add(gracePeriod))``;
without ``deletionGracePeriodSeconds`` the pod stays charged).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from builders import cluster_of, node, pod

from kubepreempt.admission.quota import pod_usage, quota_pod
from kubepreempt.api.errors import Source
from kubepreempt.api.objects import parse_pod

SRC = Source("test.yaml", 0)


def typed(manifest: dict[str, Any]):
    return parse_pod(manifest, SRC, cluster_of().priority.resolve)


def quota(hard: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ResourceQuota",
            "metadata": {"name": "q", "namespace": "default"}, "spec": {"hard": hard}}


@pytest.mark.parametrize("phase", ["Failed", "Succeeded"])
def test_terminal_pod_is_charged_only_its_object_count(phase: str) -> None:
    """``QuotaV1Pod`` returns false for ``PodFailed`` and ``PodSucceeded``, so
    ``PodUsageFunc`` gives only ``count/pods``; a Running pod is charged in full.

    Kills the mutation that drops ``Failed`` (or ``Succeeded``) from the terminal phases
    in ``quota_pod``."""
    done = typed(pod("done", "1", "1Gi", node_name="n1", status_extra={"phase": phase}))
    assert quota_pod(done, now=0.0).charged is False
    assert pod_usage(quota_pod(done, now=0.0)) == {"count/pods": Fraction(1)}
    running = typed(pod("run", "1", "1Gi", node_name="n1", status_extra={"phase": "Running"}))
    assert pod_usage(quota_pod(running, now=0.0)) == {
        "count/pods": 1, "pods": 1, "cpu": 1, "requests.cpu": 1,
        "memory": 1 << 30, "requests.memory": 1 << 30}


def test_failed_pod_leaves_room_in_pods_and_cpu_quota() -> None:
    """A Failed pod's ``pods`` and ``requests.cpu`` are not charged (``QuotaV1Pod``), so a
    quota of one pod and one CPU still admits a new 1-CPU pod; a Running one fills it and
    the apiserver refuses with ``exceeded quota``."""
    q = quota({"pods": "1", "requests.cpu": "1"})

    def admit(phase: str) -> str | None:
        c = cluster_of(node("n1", cpu="8"), q,
                       pod("old", "1", node_name="n1", status_extra={"phase": phase}))
        new = parse_pod(pod("new", "1"), SRC, c.priority.resolve)
        return c.quota.admit(new, [*c.pods.values(), *c.pending.values()], now=0.0)

    assert admit("Failed") is None
    assert admit("Running") == (
        'pods "new" is forbidden: exceeded quota: q, requested: pods=1,requests.cpu=1, '
        "used: pods=1,requests.cpu=1, limited: pods=1,requests.cpu=1")


def test_deletion_grace_comes_from_metadata_not_spec() -> None:
    """``QuotaV1Pod`` reads ``metadata.deletionGracePeriodSeconds`` (the grace the delete
    call set), not ``spec.terminationGracePeriodSeconds``: deleted at t=10 with a 5 s
    deletion grace and a 300 s spec grace, the pod stops being charged after t=15
    (``now.After(deletion + grace)``: at exactly 15 it is still charged).

    Kills the mutation (and the former bug) of reading the spec's grace period."""
    p = typed(pod("dying", "1", node_name="n1",
                  meta_extra={"deletionTimestamp": "1970-01-01T00:00:10Z",
                              "deletionGracePeriodSeconds": 5},
                  spec_extra={"terminationGracePeriodSeconds": 300}))
    assert quota_pod(p, now=15.0).charged is True
    assert quota_pod(p, now=16.0).charged is False
    assert pod_usage(quota_pod(p, now=16.0)) == {"count/pods": Fraction(1)}


def test_deleting_pod_without_deletion_grace_stays_charged() -> None:
    """``QuotaV1Pod`` only un-charges a deleting pod when ``DeletionGracePeriodSeconds`` is
    set (``pod.DeletionTimestamp != nil && pod.DeletionGracePeriodSeconds != nil``); a short
    spec grace does not stand in for it."""
    p = typed(pod("dying", "1", node_name="n1",
                  meta_extra={"deletionTimestamp": "1970-01-01T00:00:10Z"},
                  spec_extra={"terminationGracePeriodSeconds": 1}))
    assert quota_pod(p, now=1000.0).charged is True


@pytest.mark.parametrize("manifest_state", ["failed", "deleted"])
def test_the_pod_being_created_is_charged_in_full(manifest_state: str) -> None:
    """Store.Create runs ``rest.BeforeCreate`` (which sets ``deletionTimestamp`` and
    ``deletionGracePeriodSeconds`` to nil, and the pod strategy's ``PrepareForCreate``
    resets ``status`` to ``Pending``) before the validating ResourceQuota plugin: a new
    pod is charged ``pods`` even if its manifest says Failed or deleted long ago."""
    extra: dict[str, Any] = {}
    if manifest_state == "failed":
        extra["status_extra"] = {"phase": "Failed"}
    else:
        extra["meta_extra"] = {"deletionTimestamp": "1970-01-01T00:00:10Z",
                               "deletionGracePeriodSeconds": 5}
    c = cluster_of(node("n1"), quota({"pods": "0"}))
    new = parse_pod(pod("p", "100m", **extra), SRC, c.priority.resolve)
    assert c.quota.admit(new, [], now=1000.0) == (
        'pods "p" is forbidden: exceeded quota: q, requested: pods=1, used: pods=0, '
        "limited: pods=0")
