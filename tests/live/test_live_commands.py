"""Every manifest-reading command decides the same from ``--cluster`` as from the same
objects in a file: the repository's examples, served as kube-apiserver serves lists."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Response

from kubepreempt.cli import main
from kubepreempt.live.resources import KUEUE, RESOURCES
from kubepreempt.manifests import load_documents

EXAMPLES = Path(__file__).parents[2] / "examples"


def serve_as_cluster(server: HTTPServer, path: Path, tmp_path: Path,
                     not_served: tuple[str, ...] = ()) -> list[str]:
    """Serve the file's objects as typed lists (items without kind/apiVersion, as the API
    server writes them); every other known resource is an empty list. Objects of kinds
    that are not API resources are written to a file to pass next to --cluster."""
    docs = load_documents([str(path)])
    for kind, res in RESOURCES.items():
        if kind in not_served:
            server.expect_request(res.path()).respond_with_response(Response(
                '{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound",'
                '"code":404,"message":"the server could not find the requested resource"}',
                status=404, content_type="application/json"))
            continue
        items = [{k: v for k, v in o.body.items() if k not in ("kind", "apiVersion")}
                 for o in docs.of(kind)]
        body = {"kind": f"{kind}List", "apiVersion": res.api_version,
                "metadata": {"resourceVersion": "7"}, "items": items}
        server.expect_request(res.path()).respond_with_json(body)
    # API discovery for the Kueue group, as a server with Kueue v0.7 installed answers it.
    kueue = [r for r in RESOURCES.values() if r.discover and r.kind not in not_served
             and r.kind != "Cohort"]
    server.expect_request("/apis/kueue.x-k8s.io").respond_with_json({
        "kind": "APIGroup", "apiVersion": "v1", "name": "kueue.x-k8s.io",
        "versions": [{"groupVersion": KUEUE, "version": "v1beta1"}],
        "preferredVersion": {"groupVersion": KUEUE, "version": "v1beta1"}})
    server.expect_request(f"/apis/{KUEUE}").respond_with_json({
        "kind": "APIResourceList", "apiVersion": "v1", "groupVersion": KUEUE,
        "resources": [{"name": r.plural, "kind": r.kind, "namespaced": r.namespaced,
                       "verbs": ["get", "list", "watch"]} for r in kueue]})
    extra = [o.body for kind, objs in docs.by_kind.items() if kind not in RESOURCES
             for o in objs]
    if not extra:
        return []
    side = tmp_path / "not-api-objects.json"
    side.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": extra}))
    return [str(side)]


CASES = [
    ("basic/cluster.yaml", ["schedule", "--pod", "shop/checkout", "--explain"]),
    ("kubelet/critical-admission.yaml",
     ["kubelet-admit", "--pod", "kube-system/static-agent", "--node", "worker-1"]),
    ("kubelet/seed-2gb-after.yaml", ["evict-rank", "--node", "node-2gb"]),
    ("whatif/cluster.yaml", ["schedule", "-f", str(EXAMPLES / "whatif/web.yaml")]),
    ("whatif/cluster.yaml", ["advise", "-f", str(EXAMPLES / "whatif/train.yaml"),
                             "--node-like", "node-a"]),
    ("kueue/classic.yaml", ["kueue", "--workload", "team-a/training", "--explain"]),
    ("kueue/fair-sharing.yaml", ["kueue", "--workload", "team-c/c-new", "--explain"]),
]


@pytest.mark.parametrize(("example", "args"), CASES, ids=[c[0] for c in CASES])
def test_cluster_and_file_decide_the_same(httpserver, kubeconfig, tmp_path, capsys, example,
                                          args) -> None:
    path = EXAMPLES / example
    side = serve_as_cluster(httpserver, path, tmp_path)
    assert main([*args, str(path), "-o", "json"]) == 0
    from_file = json.loads(capsys.readouterr().out)
    assert main([*args, *side, "--kubeconfig", str(kubeconfig), "-o", "json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == from_file
    assert "warning: skipped" not in err  # only the command's kinds were listed


def test_metrics_api_missing_is_a_warning(httpserver, kubeconfig, tmp_path, capsys) -> None:
    path = EXAMPLES / "kubelet/seed-2gb-after.yaml"
    serve_as_cluster(httpserver, path, tmp_path, not_served=("PodMetrics",))
    assert main(["evict-rank", "--node", "node-2gb", "--kubeconfig", str(kubeconfig),
                 "-o", "json"]) == 0
    out, err = capsys.readouterr()
    assert "does not serve pods.metrics.k8s.io (metrics.k8s.io/v1beta1)" in err
    ranked = json.loads(out)
    assert ranked["node"] == "node-2gb"


def test_kueue_not_installed_is_one_line(httpserver, kubeconfig, tmp_path, capsys) -> None:
    serve_as_cluster(httpserver, EXAMPLES / "basic/cluster.yaml", tmp_path,
                     not_served=("ClusterQueue",))
    assert main(["kueue", "--workload", "a/b", "--kubeconfig", str(kubeconfig)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "does not serve clusterqueues.kueue.x-k8s.io (kueue.x-k8s.io/v1beta1)" in err


def test_discovery_picks_the_served_kueue_version(httpserver, kubeconfig) -> None:
    from kubepreempt.live.client import ApiClient, NotServed
    from kubepreempt.live.discovery import served
    from kubepreempt.live.kubeconfig import resolve

    def resources(*plurals: str) -> dict:
        return {"kind": "APIResourceList", "resources": [{"name": p} for p in plurals]}

    httpserver.expect_request("/apis/kueue.x-k8s.io").respond_with_json({
        "kind": "APIGroup", "name": "kueue.x-k8s.io",
        "versions": [{"groupVersion": "kueue.x-k8s.io/v1beta2"},
                     {"groupVersion": "kueue.x-k8s.io/v1beta1"},
                     {"groupVersion": "kueue.x-k8s.io/v1alpha1"}],
        "preferredVersion": {"groupVersion": "kueue.x-k8s.io/v1beta2"}})
    httpserver.expect_request("/apis/kueue.x-k8s.io/v1beta2").respond_with_json(
        resources("clusterqueues", "workloads"))
    httpserver.expect_request("/apis/kueue.x-k8s.io/v1beta1").respond_with_json(
        resources("clusterqueues", "workloads"))
    httpserver.expect_request("/apis/kueue.x-k8s.io/v1alpha1").respond_with_json(
        resources("cohorts"))
    with ApiClient(resolve(str(kubeconfig))) as client:
        cq = served(client, RESOURCES["ClusterQueue"])
        assert cq.api_version == "kueue.x-k8s.io/v1beta2"  # the preferred version first
        assert cq.path() == "/apis/kueue.x-k8s.io/v1beta2/clusterqueues"
        assert served(client, RESOURCES["Cohort"]).api_version == "kueue.x-k8s.io/v1alpha1"
        with pytest.raises(NotServed):
            served(client, RESOURCES["ResourceFlavor"])
        assert served(client, RESOURCES["Node"]) is RESOURCES["Node"]  # no discovery
        n = len(httpserver.log)
        served(client, RESOURCES["Workload"])
        assert len(httpserver.log) == n  # discovery documents are cached
