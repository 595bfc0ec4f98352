"""The pod template as the API server stores it, which StatefulSet revisions hash: upstream
``pkg/apis/core/v1/defaults.go`` (``SetDefaults_PodSpec``, ``SetDefaults_Container``,
``SetDefaults_ContainerPort``) and the ``PodTemplateSpec`` type (metadata and spec only)."""

from __future__ import annotations

import copy

from kubepreempt.controllers.expand import default_pod_template, statefulset_revision

CONTAINER = {"name": "c", "image": "nginx:1.27"}


def stateful_set(template: dict) -> dict:
    return {"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "db", "namespace": "shop"},
            "spec": {"selector": {"matchLabels": {"app": "db"}}, "template": template}}


def test_an_empty_pod_spec_gets_the_pod_spec_defaults() -> None:
    """``SetDefaults_PodSpec`` on a template without a spec: ``dnsPolicy`` ClusterFirst,
    ``restartPolicy`` Always, ``schedulerName`` default-scheduler (``SetDefaults_PodSpec``
    ``SchedulerName = DefaultSchedulerName``), an empty ``securityContext`` and
    ``terminationGracePeriodSeconds`` 30 (``DefaultTerminationGracePeriodSeconds``)."""
    assert default_pod_template({"metadata": {"labels": {"app": "db"}}})["spec"] == {
        "dnsPolicy": "ClusterFirst", "restartPolicy": "Always",
        "schedulerName": "default-scheduler", "securityContext": {},
        "terminationGracePeriodSeconds": 30}


def test_container_ports_default_to_tcp_and_init_containers_are_defaulted() -> None:
    """``SetDefaults_ContainerPort``: an empty protocol becomes ``TCP``, a written one stays;
    the generated defaulters run ``SetDefaults_Container`` on every init container too
    (pull policy from the tag, termination message path and policy, empty resources)."""
    template = {"spec": {
        "containers": [{**CONTAINER, "ports": [{"containerPort": 80},
                                               {"containerPort": 53, "protocol": "UDP"}]}],
        "initContainers": [{"name": "init", "image": "busybox"}]}}
    spec = default_pod_template(template)["spec"]
    assert spec["containers"][0]["ports"] == [
        {"containerPort": 80, "protocol": "TCP"}, {"containerPort": 53, "protocol": "UDP"}]
    assert spec["initContainers"] == [{
        "name": "init", "image": "busybox", "imagePullPolicy": "Always", "resources": {},
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File"}]


def test_fields_a_pod_template_does_not_store_leave_the_revision_unchanged() -> None:
    """``PodTemplateSpec`` has no ``status``, so a manifest's ``status`` under the template
    is dropped when it is decoded; a zero ``metadata.creationTimestamp`` (``null`` in a
    ``kubectl get -o yaml`` dump) is omitted from the JSON since 1.34 (``omitzero``,
    ``testdata/compatibility_revision_1.34.0.json``). Neither changes the revision."""
    plain = {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [CONTAINER]}}
    dumped = {"metadata": {"labels": {"app": "db"}, "creationTimestamp": None},
              "spec": {"containers": [CONTAINER]}, "status": {}}
    assert statefulset_revision(stateful_set(dumped)) == statefulset_revision(
        stateful_set(plain))


def test_defaulting_leaves_the_manifest_unchanged() -> None:
    """The revision is hashed from a defaulted copy; the manifest the user gave (whose
    template the pods are then built from) keeps only what it says."""
    set_ = stateful_set({"metadata": {"labels": {"app": "db"}},
                         "spec": {"containers": [{**CONTAINER, "ports": [{"containerPort": 80}]}]}})
    before = copy.deepcopy(set_)
    statefulset_revision(set_)
    assert set_ == before
