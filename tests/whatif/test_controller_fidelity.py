"""What the apiserver and the ReplicaSet controller do with a new bundle, before any pod
is scheduled: orphan adoption (``replica_set.go`` ``syncReplicaSet`` -> ``claimPods``,
``manageReplicas``), selector validation (``ValidatePodTemplateSpecForReplicaSet``),
PriorityClasses defined in the bundle, and where errors about template pods point."""

from __future__ import annotations

import pytest
from builders import cluster_of, docs_of, node, pod, priority_class

from kubepreempt.api.errors import InputError
from kubepreempt.whatif.place import expand_documents, what_if

CLASSES = (priority_class("high", 1000),)


def workload(kind: str, name: str, replicas: int, *, selector: dict | None = None,
             labels: dict | None = None, pc: str = "high", ns: str = "shop") -> dict:
    labels = {"app": name} if labels is None else labels
    return {"apiVersion": "apps/v1", "kind": kind,
            "metadata": {"name": name, "namespace": ns},
            "spec": {"replicas": replicas,
                     "selector": {"matchLabels": {"app": name}} if selector is None
                     else selector,
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"priorityClassName": pc, "containers": [
                                      {"name": "c", "image": "x:1",
                                       "resources": {"requests": {"cpu": "100m"}}}]}}}}


def test_replicaset_adopts_two_orphans_and_creates_one_pod() -> None:
    """``syncReplicaSet``: ``claimPods`` adopts the active pods its selector matches that
    have no controller; ``manageReplicas`` creates ``replicas - len(filteredPods)`` = 3 - 2.
    A finished pod (``FilterActivePods``), a pod of another namespace and a pod with
    another controller are not claimed."""
    owned = {"ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                  "name": "other", "uid": "u", "controller": True}]}
    cluster = cluster_of(*CLASSES, node("n1", cpu="8"),
                         pod("o1", "100m", ns="shop", node_name="n1", labels={"app": "web"}),
                         pod("o2", "100m", ns="shop", labels={"app": "web"}),
                         pod("done", "100m", ns="shop", node_name="n1", labels={"app": "web"},
                             status_extra={"phase": "Succeeded"}),
                         pod("elsewhere", "100m", ns="team", labels={"app": "web"}),
                         pod("theirs", "100m", ns="shop", labels={"app": "web"},
                             meta_extra=owned))
    adopted: list = []
    out = expand_documents(cluster, docs_of(workload("ReplicaSet", "web", 3)),
                           adopted=adopted)
    assert [len(pods) for _, pods, _, _ in out] == [1]
    assert adopted == [("ReplicaSet/shop/web", ["shop/o1", "shop/o2"])]


def test_deployment_replicaset_adopts_orphans_its_hashed_selector_matches() -> None:
    """The Deployment's new ReplicaSet selects ``pod-template-hash`` too: an orphan with
    the template's labels but no hash is not its pod; one with the hash is adopted, so
    ``replicas: 3`` creates two pods and the summary names the adoption."""
    dep = workload("Deployment", "web", 3)
    probe = expand_documents(cluster_of(*CLASSES, node("n1", cpu="8")), docs_of(dep))
    hash_ = probe[0][1][0].labels["pod-template-hash"]
    cluster = cluster_of(*CLASSES, node("n1", cpu="8"),
                         pod("plain", "100m", ns="shop", labels={"app": "web"}),
                         pod("hashed", "100m", ns="shop", node_name="n1",
                             labels={"app": "web", "pod-template-hash": hash_}))
    result = what_if(cluster, docs_of(dep), now=1e9)
    assert len(result.placements) == 2
    assert result.summary()["adoptedPods"] == {"Deployment/shop/web": ["shop/hashed"]}


def test_selector_not_matching_template_labels_is_refused_as_the_apiserver_does() -> None:
    """``ValidateDeploymentSpec`` -> ``ValidatePodTemplateSpecForReplicaSet``:
    ``field.Invalid(spec.template.metadata.labels, template.Labels, "`selector` does not
    match template `labels`")`` inside ``NewInvalid``'s ``Deployment.apps "web" is
    invalid: ...``."""
    cluster = cluster_of(*CLASSES, node("n1", cpu="8"))
    bad = workload("Deployment", "web", 2, labels={"app": "webby"})
    with pytest.raises(InputError) as err:
        expand_documents(cluster, docs_of(bad))
    assert str(err.value) == (
        'test.yaml, document 1: Deployment shop/web: Deployment.apps "web" is invalid: '
        'spec.template.metadata.labels: Invalid value: {"app":"webby"}: '
        "`selector` does not match template `labels`")
    empty = workload("StatefulSet", "db", 1, selector={})
    with pytest.raises(InputError, match=r'StatefulSet.apps "db" is invalid: spec.selector: '
                       r"Invalid value: \{\}: empty selector is invalid for statefulset$"):
        expand_documents(cluster, docs_of(empty))


def test_priority_class_in_the_bundle_is_created_before_the_pods() -> None:
    """A chart that defines ``web-high`` next to the Deployment using it: ``kubectl
    apply`` creates the class, then the ReplicaSet controller creates pods the Priority
    admission plugin resolves against it."""
    cluster = cluster_of(node("n1", cpu="8"))
    result = what_if(cluster, docs_of(workload("Deployment", "web", 2, pc="web-high"),
                                      priority_class("web-high", 5000)), now=1e9)
    assert [(p.result, p.pod.priority) for p in result.placements] == [
        ("scheduled", 5000), ("scheduled", 5000)]


def test_changing_an_existing_class_value_is_refused() -> None:
    """``ValidatePriorityClassUpdate``: ``value: Forbidden: may not be changed in an
    update.``"""
    cluster = cluster_of(*CLASSES, node("n1", cpu="8"))
    with pytest.raises(InputError, match=r'PriorityClass.scheduling.k8s.io "high" is '
                       r"invalid: value: Forbidden: may not be changed in an update.$"):
        expand_documents(cluster, docs_of(priority_class("high", 7)))


def test_error_about_a_template_pod_names_the_workload_once() -> None:
    """An unknown class in a Deployment's template: the file, document and workload are
    named once, then the field; no generated pod name."""
    cluster = cluster_of(node("n1", cpu="8"))
    with pytest.raises(InputError) as err:
        expand_documents(cluster, docs_of(workload("Deployment", "web", 2, pc="web-high")))
    assert str(err.value) == ("test.yaml, document 1: Deployment shop/web: unknown "
                              "PriorityClass 'web-high' (spec.priorityClassName)")
