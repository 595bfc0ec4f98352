"""A Deployment's new ReplicaSet, from upstream ``pkg/controller/deployment``
(``getReplicaSetsForDeployment``: the ReplicaSets of the Deployment's namespace it
controls; ``FindNewReplicaSet``: the first with a template ``EqualIgnoreHash`` to the
Deployment's; ``getNewReplicaSet``: otherwise a new one named ``<deployment>-<hash>``,
``controller.ComputeHash(&d.Spec.Template, d.Status.CollisionCount)``)."""

from __future__ import annotations

import copy

from kubepreempt.controllers.expand import POD_TEMPLATE_HASH, Names, compute_hash, expand

TEMPLATE = {"metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "c", "image": "nginx:1.27"}]}}
OLD_TEMPLATE = {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx:1.26"}]}}


def deployment(ns: str | None = "shop", **extra) -> dict:
    meta = {"name": "web"} if ns is None else {"name": "web", "namespace": ns}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta,
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                     "template": TEMPLATE}, **extra}


def replicaset(hash_: str, *, ns: str | None = "shop", owner: str = "web",
               owner_kind: str = "Deployment", template: dict = TEMPLATE) -> dict:
    meta = {"name": f"web-{hash_}",
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": owner_kind, "name": owner,
                                 "uid": "d-uid", "controller": True}]}
    if ns is not None:
        meta["namespace"] = ns
    rs_template = copy.deepcopy(template)
    rs_template["metadata"]["labels"][POD_TEMPLATE_HASH] = hash_
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": meta,
            "spec": {"template": rs_template}}


def new_rs_name(dep: dict, replicasets: list) -> str:
    return expand(dep, Names(), replicasets=replicasets).created[0]["metadata"]["name"]


def test_a_manifest_without_namespace_is_in_default_on_either_side() -> None:
    """Objects without ``metadata.namespace`` are created in ``default``: the Deployment
    finds its ReplicaSet there whichever of the two names the namespace."""
    assert new_rs_name(deployment(None), [replicaset("abc", ns="default")]) == "web-abc"
    assert new_rs_name(deployment("default"), [replicaset("abc", ns=None)]) == "web-abc"


def test_each_candidate_replicaset_is_looked_at() -> None:
    """A ReplicaSet of another namespace, of another Deployment or with an old template
    is skipped and the next one is considered."""
    assert new_rs_name(deployment(), [replicaset("other", ns="team"),
                                      replicaset("old", template=OLD_TEMPLATE),
                                      replicaset("cur")]) == "web-cur"
    assert new_rs_name(deployment(), [replicaset("theirs", owner="api"),
                                      replicaset("cur")]) == "web-cur"


def test_a_replicaset_another_object_controls_is_not_the_new_one() -> None:
    """``ClaimReplicaSets`` leaves a ReplicaSet controlled by another Deployment (or by
    an object of another kind with the Deployment's name) alone: its template may equal
    the Deployment's, but the Deployment creates its own."""
    fresh = f"web-{compute_hash(TEMPLATE, None)}"
    assert new_rs_name(deployment(), [replicaset("abc", owner="api")]) == fresh
    assert new_rs_name(deployment(), [replicaset("abc", owner_kind="StatefulSet")]) == fresh


def test_the_collision_count_salts_the_new_hash() -> None:
    """``ComputeHash(&d.Spec.Template, d.Status.CollisionCount)``: a Deployment whose
    status counts one collision names its ReplicaSet by the salted hash."""
    dep = deployment(status={"collisionCount": 1})
    assert new_rs_name(dep, []) == f"web-{compute_hash(TEMPLATE, 1)}"
    assert compute_hash(TEMPLATE, 1) != compute_hash(TEMPLATE, None)


def test_finding_the_replicaset_leaves_the_input_unchanged() -> None:
    """``EqualIgnoreHash`` compares copies with the hash label removed: the input's
    ReplicaSet keeps its label, so expanding the Deployment again finds it again."""
    rs = replicaset("abc")
    before = copy.deepcopy(rs)
    assert new_rs_name(deployment(), [rs]) == "web-abc"
    assert rs == before
    assert new_rs_name(deployment(), [rs]) == "web-abc"


def test_the_new_replicaset_object() -> None:
    """``getNewReplicaSet``: an ``apps/v1`` ReplicaSet in the Deployment's namespace
    (``default`` when the manifest names none), labelled like its template (with the
    hash), owned by ``NewControllerRef(d)``, with the Deployment's replicas (1 by
    default, ``SetDefaults_Deployment``; a new Deployment's ``NewRSNewReplicas`` is all of
    them)."""
    dep = deployment(None)
    dep["metadata"]["uid"] = "d-uid"
    del dep["spec"]["replicas"]
    exp = expand(dep, Names())
    assert exp.key == "Deployment/default/web" and len(exp.pods) == 1
    [rs] = exp.created
    h = compute_hash(TEMPLATE, None)
    assert rs["apiVersion"] == "apps/v1" and rs["kind"] == "ReplicaSet"
    assert rs["metadata"]["namespace"] == "default"
    assert rs["metadata"]["labels"] == {"app": "web", POD_TEMPLATE_HASH: h}
    assert rs["metadata"]["ownerReferences"] == [{
        "apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "d-uid",
        "controller": True, "blockOwnerDeletion": True}]
    assert rs["spec"]["replicas"] == 1
    assert exp.pods[0]["metadata"]["namespace"] == "default"


def test_deployments_without_uid_and_their_replicasets_get_distinct_uids() -> None:
    """Every object has its own UID: Deployments that differ in namespace or name (and
    so do their ReplicaSets) own their objects by different UIDs."""
    def uids(ns: str, name: str) -> tuple[str, str]:
        dep = deployment(ns)
        dep["metadata"]["name"] = name
        [rs] = expand(dep, Names()).created
        return rs["metadata"]["ownerReferences"][0]["uid"], rs["metadata"]["uid"]
    got = [uids("shop", "web"), uids("team", "web"), uids("shop", "api")]
    assert len({u for pair in got for u in pair}) == 6


def test_a_paused_deployment_is_named_in_its_empty_expansion() -> None:
    """A paused Deployment creates no ReplicaSet (``sync`` only scales existing ones)."""
    exp = expand(deployment(spec={"paused": True, "selector": {"matchLabels": {"app": "web"}},
                                  "template": TEMPLATE}), Names())
    assert (exp.kind, exp.namespace, exp.name, exp.pods, exp.created) == (
        "Deployment", "shop", "web", [], [])


def test_a_template_without_metadata_is_labelled_with_the_hash_alone() -> None:
    """kubepreempt reads a workload without ``spec.selector`` as selecting its template's
    labels (the apiserver requires one); a template without metadata then gets the
    ``pod-template-hash`` label alone, on the ReplicaSet's template and its pods."""
    template = {"spec": TEMPLATE["spec"]}
    exp = expand({"apiVersion": "apps/v1", "kind": "Deployment",
                  "metadata": {"name": "web", "namespace": "shop"},
                  "spec": {"template": template}}, Names())
    h = compute_hash(template, None)
    assert exp.pods[0]["metadata"]["labels"] == {POD_TEMPLATE_HASH: h}
    assert exp.created[0]["spec"]["selector"] == {"matchLabels": {POD_TEMPLATE_HASH: h}}
