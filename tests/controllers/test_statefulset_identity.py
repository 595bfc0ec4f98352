"""StatefulSet pod identity beyond the ordinal labels, from upstream
``pkg/controller/statefulset/stateful_set_utils.go`` (``newStatefulSetPod``:
``controller.GetPodFromTemplate(&set.Spec.Template, set, metav1.NewControllerRef(set,
controllerKind))``, then ``initIdentity``) and ``pkg/apis/apps/v1/defaults.go``
(``SetDefaults_StatefulSet``: ``replicas`` 1)."""

from __future__ import annotations

import re
import uuid

import pytest

from kubepreempt.api.errors import InputError
from kubepreempt.controllers.expand import Names, controller_revision_name, expand

TEMPLATE = {"metadata": {"labels": {"app": "db"}},
            "spec": {"containers": [{"name": "c", "image": "postgres:16"}]}}


def test_statefulset_pod_metadata() -> None:
    """One pod by default (``replicas`` defaults to 1), in the set's namespace (``default``
    when the manifest names none); ``GetPodFromTemplate`` sets ``generateName`` to
    ``getPodsPrefix`` (``db-``) and the owner reference is ``NewControllerRef``: the
    set's apiVersion, kind, name and uid, controller and blockOwnerDeletion true. Each
    pod gets a UID of its own (the API server assigns one at creation)."""
    set_ = {"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "db", "uid": "set-uid"}, "spec": {"template": TEMPLATE}}
    names = Names()
    exp = expand(set_, names)
    assert exp.namespace == "default"
    [pod] = exp.pods
    meta = pod["metadata"]
    assert meta["name"] == "db-0" and meta["namespace"] == "default"
    assert meta["generateName"] == "db-"
    assert meta["ownerReferences"] == [{"apiVersion": "apps/v1", "kind": "StatefulSet",
                                        "name": "db", "uid": "set-uid", "controller": True,
                                        "blockOwnerDeletion": True}]
    assert uuid.UUID(meta["uid"]) and meta["uid"] != "set-uid"
    # db-0 is taken in default: no other object may be created under that name there.
    assert not names.claim("default", "db-0")
    assert names.claim("other", "db-0")


def test_statefulset_without_uid_gets_one_for_its_owner_references() -> None:
    """A set read from a manifest without ``metadata.uid`` still owns its pods by a UID
    (the API server gives every object one); pods of two sets differ in owner UID."""
    a = expand({"kind": "StatefulSet", "metadata": {"name": "a", "namespace": "x"},
                "spec": {"replicas": 2, "template": TEMPLATE}}, Names())
    b = expand({"kind": "StatefulSet", "metadata": {"name": "b", "namespace": "x"},
                "spec": {"replicas": 1, "template": TEMPLATE}}, Names())
    owners = {p["metadata"]["ownerReferences"][0]["uid"] for p in a.pods}
    assert len(owners) == 1
    [owner] = owners
    assert uuid.UUID(owner) and owner != b.pods[0]["metadata"]["ownerReferences"][0]["uid"]
    assert len({p["metadata"]["uid"] for p in a.pods}) == 2
    assert all(p["metadata"]["namespace"] == "x" for p in a.pods)


@pytest.mark.parametrize(("spec", "message"), [
    ({"replicas": -1}, "spec.replicas must be a non-negative integer, got -1"),
    ({"replicas": 2_000_000},
     "spec.replicas 2000000 is more pods than kubepreempt expands (1000000)"),
    ({"ordinals": {"start": "x"}}, "spec.ordinals.start must be a non-negative integer, "
     "got 'x'"),
    ({"ordinals": {"start": 1 << 31}}, f"spec.ordinals.start {1 << 31} does not fit in a "
     "32-bit integer"),
])
def test_statefulset_count_errors_name_the_field(spec: dict, message: str) -> None:
    """``replicas`` and ``ordinals.start`` are non-negative int32 fields
    (``ValidateStatefulSetSpec``); the refusal names the field."""
    set_ = {"kind": "StatefulSet", "metadata": {"name": "db"},
            "spec": {**spec, "template": TEMPLATE}}
    with pytest.raises(InputError, match=re.escape(message)):
        expand(set_, Names())


def test_statefulset_expansion_is_named_by_the_set() -> None:
    exp = expand({"kind": "StatefulSet", "metadata": {"name": "db", "namespace": "x"},
                  "spec": {"template": TEMPLATE}}, Names())
    assert (exp.kind, exp.namespace, exp.name) == ("StatefulSet", "x", "db")


def test_controller_revision_name_cuts_the_prefix_at_223() -> None:
    """``history.ControllerRevisionName``: a prefix longer than 223 characters is cut to
    223, then ``-<hash>`` (so the name fits 253)."""
    assert controller_revision_name("a" * 230, "5d8f") == "a" * 223 + "-5d8f"
    assert controller_revision_name("a" * 223, "5d8f") == "a" * 223 + "-5d8f"
    assert controller_revision_name("web", "5d8f") == "web-5d8f"
