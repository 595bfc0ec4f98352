"""Which existing pods a new ReplicaSet claims, from upstream
``pkg/controller/replicaset/replica_set.go`` (``syncReplicaSet``: ``FilterActivePods``
then ``claimPods``) and ``pkg/controller/controller_ref_manager.go`` (``ClaimPods``: a
pod whose controller reference names this ReplicaSet is kept, an orphan the selector
matches is adopted, a pod controlled by another object is left alone;
``metav1.GetControllerOf`` reads only the reference with ``controller: true``)."""

from __future__ import annotations

from builders import pod

from kubepreempt.api.errors import Source
from kubepreempt.api.objects import PREEMPT_LOWER_PRIORITY, parse_pod
from kubepreempt.controllers.expand import claim_pods


def parsed(*raw: dict) -> list:
    return [parse_pod(p, Source("test.yaml", i), lambda _: (0, PREEMPT_LOWER_PRIORITY))
            for i, p in enumerate(raw)]


def owner(kind: str, name: str, controller: bool) -> dict:
    return {"ownerReferences": [{"apiVersion": "apps/v1", "kind": kind, "name": name,
                                 "uid": f"{name}-uid", "controller": controller}]}


def replicaset(namespace: str | None = "shop") -> dict:
    meta = {"name": "web"} if namespace is None else {"name": "web", "namespace": namespace}
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": meta,
            "spec": {"selector": {"matchLabels": {"app": "web"}}}}


WEB = {"app": "web"}


def test_only_active_pods_are_claimed() -> None:
    """``FilterActivePods``: a ``Succeeded`` or ``Failed`` pod, or one being deleted, is
    not the ReplicaSet's; a running orphan after them is (each pod is looked at)."""
    pods = parsed(
        pod("done", ns="shop", labels=WEB, status_extra={"phase": "Succeeded"}),
        pod("failed", ns="shop", labels=WEB, status_extra={"phase": "Failed"}),
        pod("leaving", ns="shop", labels=WEB, node_name="n1",
            meta_extra={"deletionTimestamp": "2026-01-01T00:00:00Z"}),
        pod("other-app", ns="shop", labels={"app": "db"}),
        pod("orphan", ns="shop", labels=WEB, status_extra={"phase": "Running"},
            node_name="n1"))
    assert claim_pods(replicaset(), pods) == ["shop/orphan"]


def test_own_pods_and_orphans_are_claimed_but_not_another_controllers() -> None:
    """``ClaimPods``: the pod already controlled by this ReplicaSet (same kind and name)
    is kept; an owner reference without ``controller: true`` does not make a controller,
    so that pod is an orphan and is adopted; a pod a Deployment or another ReplicaSet
    controls is not claimed."""
    pods = parsed(
        pod("mine", ns="shop", labels=WEB, meta_extra=owner("ReplicaSet", "web", True)),
        pod("owned-not-controlled", ns="shop", labels=WEB,
            meta_extra=owner("ReplicaSet", "other", False)),
        pod("deployment", ns="shop", labels=WEB, meta_extra=owner("Deployment", "web", True)),
        pod("sibling", ns="shop", labels=WEB, meta_extra=owner("ReplicaSet", "web2", True)))
    assert claim_pods(replicaset(), pods) == ["shop/mine", "shop/owned-not-controlled"]


def test_a_replicaset_without_namespace_claims_in_default() -> None:
    """A manifest without ``metadata.namespace`` is created in ``default``: the orphans
    it claims are the ``default`` namespace's."""
    pods = parsed(pod("here", ns="default", labels=WEB), pod("there", ns="shop", labels=WEB))
    assert claim_pods(replicaset(None), pods) == ["default/here"]
