"""``schedule --cluster`` reads Kubernetes 1.37's PodGroups and Workloads
(``scheduling.k8s.io/v1beta1``) when the server serves them; a 404 (the GenericWorkload
gate off, or a 1.36 server) is no error and no warning
(``test_live_list.test_only_the_commands_kinds_are_listed``)."""

from __future__ import annotations

import json

from conftest import NOT_SERVED, serve_lists
from pytest_httpserver import HTTPServer

from kubepreempt.cli import main

PODGROUPS, WORKLOADS = NOT_SERVED
POD_GROUP = {"metadata": {"name": "web", "namespace": "shop", "resourceVersion": "7"},
             "spec": {"schedulingPolicy": {"basic": {}}}}


def serve_workload_api(server: HTTPServer) -> None:
    """A server with the workload API on: one PodGroup, no Workloads."""
    for path, kind, items in ((PODGROUPS, "PodGroupList", [POD_GROUP]),
                              (WORKLOADS, "WorkloadList", [])):
        server.expect_request(path, method="GET").respond_with_json(
            {"kind": kind, "apiVersion": "scheduling.k8s.io/v1beta1",
             "metadata": {"resourceVersion": "9"}, "items": items})


def test_podgroups_are_listed_and_turn_the_gate_on(httpserver, kubeconfig, capsys) -> None:
    serve_workload_api(httpserver)  # registered first: matched before serve_lists' 404s
    serve_lists(httpserver)
    code = main(["schedule", "--kubeconfig", str(kubeconfig), "--kube-version", "1.37",
                 "--pod", "shop/checkout-0", "-o", "json"])
    out = capsys.readouterr()
    assert code == 0
    # The listed PodGroup is a v1beta1 object in the input: GenericWorkload taken as on.
    assert out.err.startswith("note: the input holds scheduling.k8s.io/v1beta1 objects")
    assert json.loads(out.out)["modelled"]["featureGates"]["GenericWorkload"] is True
    paths = {req.path for req, _ in httpserver.log}
    assert {PODGROUPS, WORKLOADS} <= paths


def test_a_server_without_the_api_leaves_the_gate_off(apiserver, kubeconfig, capsys
                                                     ) -> None:
    code = main(["schedule", "--kubeconfig", str(kubeconfig), "--kube-version", "1.37",
                 "--pod", "shop/checkout-0", "-o", "json"])
    out = capsys.readouterr()
    assert code == 0 and out.err == ""
    assert json.loads(out.out)["modelled"]["featureGates"]["GenericWorkload"] is False
