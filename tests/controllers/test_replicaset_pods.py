"""A ReplicaSet's new pods, from upstream ``pkg/controller/controller_utils.go``
(``GetPodFromTemplate``: the template's labels, annotations and finalizers, ``metav1.
NewControllerRef``), ``pkg/controller/replicaset/replica_set.go`` (``manageReplicas``)
and the API server's create path (a new pod is ``Pending``)."""

from __future__ import annotations

import uuid

import pytest

from kubepreempt.api.errors import InputError
from kubepreempt.controllers.expand import MAX_PODS, Names, _pod_count, expand

TEMPLATE = {"metadata": {"labels": {"app": "web"}, "annotations": {"team": "shop"},
                         "finalizers": ["example.com/keep"]},
            "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}


def replicaset(replicas: int | None = None, **spec) -> dict:
    body = {"selector": {"matchLabels": {"app": "web"}}, "template": TEMPLATE, **spec}
    if replicas is not None:
        body["replicas"] = replicas
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": "web", "namespace": "shop", "uid": "rs-uid"}, "spec": body}


def test_a_new_pod_is_a_v1_pending_pod_with_the_template_metadata() -> None:
    """``GetPodFromTemplate`` copies labels, annotations and finalizers; the pod is a
    ``v1`` ``Pod`` and a pod the API server just created is ``Pending``
    (``podStrategy.PrepareForCreate``)."""
    [pod] = expand(replicaset(), Names()).pods
    assert pod["apiVersion"] == "v1" and pod["kind"] == "Pod"
    assert pod["status"] == {"phase": "Pending"}
    meta = pod["metadata"]
    assert meta["labels"] == {"app": "web"} and meta["annotations"] == {"team": "shop"}
    assert meta["finalizers"] == ["example.com/keep"]
    assert meta["ownerReferences"] == [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                        "name": "web", "uid": "rs-uid", "controller": True,
                                        "blockOwnerDeletion": True}]
    assert pod["spec"] == TEMPLATE["spec"]


def test_zero_replicas_create_no_pods() -> None:
    """``replicas: 0`` is valid (``ValidateNonnegativeField``): ``manageReplicas`` has
    nothing to create."""
    assert expand(replicaset(0), Names()).pods == []
    assert len(expand(replicaset(3), Names()).pods) == 3


def test_the_pod_limit_allows_exactly_max_pods() -> None:
    """A workload may expand to ``MAX_PODS`` pods (the simulator's ``--max-pods``
    default); only a larger count is refused, naming the field."""
    assert _pod_count(MAX_PODS, "spec.replicas") == MAX_PODS
    with pytest.raises(ValueError, match=r"spec.replicas 1000001 is more pods"):
        _pod_count(MAX_PODS + 1, "spec.replicas")


def test_a_replicaset_without_namespace_creates_its_pods_in_default() -> None:
    rs = replicaset()
    del rs["metadata"]["namespace"]
    exp = expand(rs, Names())
    assert exp.namespace == "default" and exp.key == "ReplicaSet/default/web"
    assert [p["metadata"]["namespace"] for p in exp.pods] == ["default"]


def test_replicasets_without_uid_get_distinct_owner_uids() -> None:
    """Every object has a UID of its own (the API server assigns one): ReplicaSets
    without ``metadata.uid`` that differ in namespace or in name own their pods by
    different UIDs."""
    def owner_uid(ns: str, name: str) -> str:
        rs = replicaset()
        rs["metadata"] = {"name": name, "namespace": ns}
        return expand(rs, Names()).pods[0]["metadata"]["ownerReferences"][0]["uid"]
    assert len({owner_uid("shop", "web"), owner_uid("team", "web"),
                owner_uid("shop", "api")}) == 3


def test_a_generated_pod_name_is_taken_in_the_pods_namespace() -> None:
    """The API server refuses a second object of a name that exists in the namespace
    (``generateName`` retries): the new pod's name is taken in ``shop``."""
    names = Names()
    [pod] = expand(replicaset(), names).pods
    assert not names.claim("shop", pod["metadata"]["name"])


@pytest.mark.parametrize(("replicas", "message"), [
    (-1, "cannot expand: spec.replicas must be a non-negative integer, got -1"),
    (MAX_PODS + 1, f"cannot expand: spec.replicas {MAX_PODS + 1} is more pods than "
                   f"kubepreempt expands ({MAX_PODS})"),
])
def test_replica_count_errors_name_the_field(replicas: int, message: str) -> None:
    """``ValidateNonnegativeField(spec.replicas)``; the expansion limit names it too."""
    with pytest.raises(InputError) as err:
        expand(replicaset(replicas), Names())
    assert message in str(err.value)


def test_a_template_json_cannot_carry_is_still_copied_into_each_pod() -> None:
    """Each pod gets its own copy of the template's spec, also when the spec holds a
    value the fast JSON round trip refuses (an integer past 64 bits)."""
    spec = {"containers": [{"name": "c", "image": "nginx:1.27"}],
            "activeDeadlineSeconds": 1 << 70}
    rs = replicaset(2)
    rs["spec"]["template"] = {**TEMPLATE, "spec": spec}
    pods = expand(rs, Names()).pods
    assert [p["spec"] for p in pods] == [spec, spec]
    pods[0]["spec"]["containers"][0]["image"] = "changed"
    assert spec["containers"][0]["image"] == "nginx:1.27"
    assert pods[1]["spec"]["containers"][0]["image"] == "nginx:1.27"


def test_a_workload_with_null_metadata_has_no_name() -> None:
    with pytest.raises(InputError, match="object has no metadata.name"):
        expand({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": None,
                "spec": {}}, Names())


def test_each_generated_pod_has_a_uid_of_its_own() -> None:
    """The API server gives each new pod a UID: three pods, three distinct UUIDs."""
    uids = [p["metadata"]["uid"] for p in expand(replicaset(3), Names()).pods]
    assert len({str(uuid.UUID(u)) for u in uids}) == 3
