"""A DaemonSet's pods, from upstream ``pkg/controller/daemon`` (``syncNodes``: one pod per
node from ``CreatePodTemplate`` — the template plus the ``pod-template-generation`` and
``controller-revision-hash`` labels — with ``NewControllerRef(ds)``, in the DaemonSet's
namespace; the hash is ``controller.ComputeHash(&ds.Spec.Template,
ds.Status.CollisionCount)``)."""

from __future__ import annotations

from builders import node

from kubepreempt.api.errors import Source
from kubepreempt.api.objects import parse_node
from kubepreempt.controllers.expand import (
    REVISION_HASH,
    TEMPLATE_GENERATION,
    Names,
    compute_hash,
    expand,
)

TEMPLATE = {"metadata": {"labels": {"app": "agent"}},
            "spec": {"containers": [{"name": "c", "image": "agent:1"}]}}
NODES = [parse_node(node("n1"), Source())]


def daemonset(meta: dict, **extra) -> dict:
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": meta,
            "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": TEMPLATE},
            **extra}


def test_the_pod_of_a_daemonset() -> None:
    """Namespace, owner, labels (generation 1 for a new DaemonSet; the hash salted with
    the status' collision count) and the name taken in the namespace."""
    names = Names()
    ds = daemonset({"name": "agent", "namespace": "kube-system", "uid": "ds-uid"},
                   status={"collisionCount": 2})
    exp = expand(ds, names, nodes=NODES)
    assert (exp.kind, exp.namespace, exp.name) == ("DaemonSet", "kube-system", "agent")
    [pod] = exp.pods
    meta = pod["metadata"]
    assert meta["namespace"] == "kube-system"
    assert meta["ownerReferences"] == [{"apiVersion": "apps/v1", "kind": "DaemonSet",
                                        "name": "agent", "uid": "ds-uid", "controller": True,
                                        "blockOwnerDeletion": True}]
    assert meta["labels"] == {"app": "agent", TEMPLATE_GENERATION: "1",
                              REVISION_HASH: compute_hash(TEMPLATE, 2)}
    assert compute_hash(TEMPLATE, 2) != compute_hash(TEMPLATE, None)
    assert not names.claim("kube-system", meta["name"])


def test_a_daemonset_without_namespace_runs_its_pods_in_default() -> None:
    exp = expand(daemonset({"name": "agent"}), Names(), nodes=NODES)
    assert exp.key == "DaemonSet/default/agent"
    assert [p["metadata"]["namespace"] for p in exp.pods] == ["default"]


def test_daemonsets_without_uid_own_their_pods_by_distinct_uids() -> None:
    def owner(ns: str, name: str) -> str:
        [pod] = expand(daemonset({"name": name, "namespace": ns}), Names(), nodes=NODES).pods
        return pod["metadata"]["ownerReferences"][0]["uid"]
    assert len({owner("kube-system", "agent"), owner("monitoring", "agent"),
                owner("kube-system", "proxy")}) == 3


def test_a_template_without_metadata_gets_the_controller_labels_alone() -> None:
    """kubepreempt reads a DaemonSet without ``spec.selector`` as selecting its
    template's labels (the apiserver requires one): a template without metadata still
    gets the generation and hash labels."""
    template = {"spec": TEMPLATE["spec"]}
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet",
          "metadata": {"name": "agent", "namespace": "kube-system"},
          "spec": {"template": template}}
    [pod] = expand(ds, Names(), nodes=NODES).pods
    assert pod["metadata"]["labels"] == {TEMPLATE_GENERATION: "1",
                                         REVISION_HASH: compute_hash(template, None)}
