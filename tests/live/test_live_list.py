"""Listing from recorded kube-apiserver v1.36.2 answers: bodies, pagination, 410, 403,
401, an unreachable server, and --cluster against the same objects as files."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from conftest import (
    NOT_SERVED,
    TOKEN,
    UNRECORDED,
    list_body,
    query_of,
    recorded_path,
    recorded_query,
    recording,
    response,
    serve_lists,
    write_kubeconfig,
)
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from kubepreempt.api.errors import InputError
from kubepreempt.cli import main
from kubepreempt.cluster import SCHEDULER_KINDS
from kubepreempt.live.client import ApiClient
from kubepreempt.live.kubeconfig import resolve
from kubepreempt.live.lister import list_all
from kubepreempt.live.resources import FILE_ONLY_KINDS, RESOURCES
from kubepreempt.live.snapshot import read_documents
from kubepreempt.manifests import load_documents

PODS = RESOURCES["Pod"]


def client_for(kubeconfig: Path) -> ApiClient:
    return ApiClient(resolve(str(kubeconfig)))


def paged_pods(server: HTTPServer, expire_once: bool = False,
               expire_always: bool = False) -> list[str]:
    """Serve pods-page-1/2/3 by their recorded queries; optionally answer the first
    continue request with the recorded 410. Returns the log of query strings."""
    pages = {recorded_query(f"pods-page-{i}"): f"pods-page-{i}" for i in (1, 2, 3)}
    seen: list[str] = []
    state = {"expired": False}

    def handler(request: Request) -> Response:
        query = query_of(request)
        seen.append(query)
        assert request.headers["Authorization"] == f"Bearer {TOKEN}"
        if "continue=" in query and (expire_always or (expire_once and not state["expired"])):
            state["expired"] = True
            return response("error-410-continue")
        return response(pages[query])

    server.expect_request("/api/v1/pods").respond_with_handler(handler)
    return seen


def test_list_items_carry_kind_and_api_version(apiserver, kubeconfig) -> None:
    with client_for(kubeconfig) as client:
        result = list_all(client, RESOURCES["PriorityClass"])
    body = list_body("priorityclasses")
    assert result.resource_version == body["metadata"]["resourceVersion"] == "451"
    # Each item is the server's item plus the kind and apiVersion a dump carries.
    assert result.items == [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                             **item} for item in body["items"]]


def test_pagination_follows_continue_tokens(httpserver, kubeconfig) -> None:
    seen = paged_pods(httpserver)
    with client_for(kubeconfig) as client:
        result = list_all(client, PODS, page_size=40)
    # The exact requests kube-apiserver answered in the recording, in order.
    assert seen == [recorded_query(f"pods-page-{i}") for i in (1, 2, 3)]
    expected = [{"apiVersion": "v1", "kind": "Pod", **p} for p in list_body("pods-all")["items"]]
    assert len(result.items) == 110
    assert result.items == expected
    assert result.resource_version == "451"


def test_expired_continue_token_restarts_the_list(httpserver, kubeconfig) -> None:
    seen = paged_pods(httpserver, expire_once=True)
    with client_for(kubeconfig) as client:
        result = list_all(client, PODS, page_size=40)
    q1, q2, q3 = (recorded_query(f"pods-page-{i}") for i in (1, 2, 3))
    assert seen == [q1, q2, q1, q2, q3]  # 410 on page 2: start again from page 1
    names = [p["metadata"]["name"] for p in result.items]
    assert len(names) == len(set(names)) == 110


def test_list_that_keeps_expiring_is_an_input_error(httpserver, kubeconfig) -> None:
    paged_pods(httpserver, expire_always=True)
    with client_for(kubeconfig) as client, pytest.raises(InputError, match="410 Gone"):
        list_all(client, PODS, page_size=40)


def run_cli(args: list[str], capsys) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_forbidden_names_verb_and_resource(httpserver, kubeconfig, capsys) -> None:
    serve_lists(httpserver, skip=("pods-all",))
    httpserver.expect_request("/api/v1/pods").respond_with_response(response("error-403"))
    code, out, err = run_cli(["schedule", "--kubeconfig", str(kubeconfig), "--pod",
                              "shop/checkout-0"], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert "forbidden: missing permission to list pods" in err
    assert 'User "viewer" cannot list resource "pods" in API group "" at the cluster scope' \
        in err


def test_unauthorized_is_one_line(httpserver, kubeconfig, capsys) -> None:
    httpserver.expect_request("/api/v1/nodes").respond_with_response(response("error-401"))
    code, _, err = run_cli(["schedule", "--kubeconfig", str(kubeconfig), "--pod", "a/b"],
                           capsys)
    assert code == 2 and err.count("\n") == 1 and "unauthorized (401)" in err


def test_unreachable_cluster_is_one_line_exit_2(tmp_path, capsys) -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    kc = write_kubeconfig(tmp_path / "kc", f"http://127.0.0.1:{port}", {"token": "x"})
    code, out, err = run_cli(["kubelet-admit", "--kubeconfig", str(kc), "--pod", "a/b",
                              "--node", "n"], capsys)
    assert code == 2 and out == ""
    assert err.startswith("error: cannot reach the cluster (context test (http://127.0.0.1:")
    assert err.count("\n") == 1


def recorded_files(tmp_path: Path) -> list[str]:
    """The recorded list bodies, verbatim, as files (what `kubectl get -o json` gives)."""
    paths = []
    for name in ("nodes", "namespaces", "priorityclasses", "poddisruptionbudgets",
                 "services", "replicasets", "statefulsets", "pods-all"):
        path = tmp_path / f"{name}.json"
        path.write_text(recording(name)["body"])
        paths.append(str(path))
    return paths


@pytest.mark.parametrize("pod", ["shop/checkout-0", "batch/etl-pending"])
def test_cluster_and_files_give_identical_decisions(apiserver, kubeconfig, tmp_path, capsys,
                                                    pod) -> None:
    dump = tmp_path / "dump.json"
    code, live_out, err = run_cli(["schedule", "--kubeconfig", str(kubeconfig), "--pod", pod,
                                   "-o", "json", "--explain", "--save", str(dump)], capsys)
    assert code == 0, err
    code, file_out, _ = run_cli(["schedule", *recorded_files(tmp_path), "--pod", pod, "-o",
                                 "json", "--explain"], capsys)
    assert code == 0
    code, dump_out, _ = run_cli(["schedule", str(dump), "--pod", pod, "-o", "json",
                                 "--explain"], capsys)
    assert code == 0
    live, files, dumped = json.loads(live_out), json.loads(file_out), json.loads(dump_out)
    # --cluster models the server's own release (the recording is of v1.36.2); files
    # model the default, 1.37: the two releases decide plain pods identically.
    assert live.pop("modelled")["kubernetes"] == "1.36"
    assert files.pop("modelled")["kubernetes"] == dumped.pop("modelled")["kubernetes"] == "1.37"
    assert live == files == dumped
    assert live["pod"] == pod


def test_save_dump_reads_back_identically(apiserver, kubeconfig, tmp_path) -> None:
    from kubepreempt.live.snapshot import save_dump

    with client_for(kubeconfig) as client:
        live = read_documents(client, SCHEDULER_KINDS)
    save_dump(live, str(tmp_path / "dump.json"))
    assert orjson.loads((tmp_path / "dump.json").read_bytes())["kind"] == "List"
    back = load_documents([str(tmp_path / "dump.json")])
    # The recorded cluster has none of the unrecorded kinds: empty lists leave nothing.
    assert set(back.by_kind) == set(SCHEDULER_KINDS) - {k for k, _ in UNRECORDED.values()} \
        - FILE_ONLY_KINDS
    for kind in SCHEDULER_KINDS:
        assert [o.body for o in back.of(kind)] == [o.body for o in live.of(kind)]
    assert len(back.of("Pod")) == 110 and len(back.of("Node")) == 12


def test_only_the_commands_kinds_are_listed(apiserver, kubeconfig, capsys) -> None:
    code, _, err = run_cli(["schedule", "--kubeconfig", str(kubeconfig), "--pod",
                            "shop/checkout-0", "-o", "json"], capsys)
    assert code == 0 and err == ""  # no warning about unused kinds, no progress output
    paths = sorted({req.path for req, _ in apiserver.log})
    assert paths == sorted([*(recorded_path(n) for n in (
        "nodes", "namespaces", "priorityclasses", "poddisruptionbudgets", "pods-all",
        "services", "replicasets", "statefulsets")), *UNRECORDED, *NOT_SERVED, "/version"])


def test_context_namespace_qualifies_bare_names(apiserver, tmp_path, capsys) -> None:
    kc = write_kubeconfig(tmp_path / "kc", apiserver.url_for("/").rstrip("/"),
                          {"token": TOKEN}, namespace="shop")
    code, out, err = run_cli(["schedule", "--kubeconfig", str(kc), "--pod", "checkout-0",
                              "-o", "json"], capsys)
    assert code == 0, err
    assert json.loads(out)["pod"] == "shop/checkout-0"
    code, out, _ = run_cli(["schedule", "--kubeconfig", str(kc), "-n", "batch", "--pod",
                            "etl-pending", "-o", "json"], capsys)
    assert json.loads(out)["pod"] == "batch/etl-pending"


def test_file_objects_replace_cluster_objects(apiserver, kubeconfig, tmp_path, capsys) -> None:
    # What-if: the pending pod with preemptionPolicy Never gets a preempting class.
    pod = next(p for p in list_body("pods-all")["items"]
               if p["metadata"]["name"] == "etl-pending")
    pod = {"apiVersion": "v1", "kind": "Pod", **pod}
    pod["spec"] = {**pod["spec"], "priorityClassName": "critical-web", "priority": None,
                   "preemptionPolicy": None}
    pod["spec"] = {k: v for k, v in pod["spec"].items() if v is not None}
    (tmp_path / "whatif.json").write_text(json.dumps(pod))
    code, out, err = run_cli(["schedule", "--kubeconfig", str(kubeconfig), str(tmp_path /
                              "whatif.json"), "--pod", "batch/etl-pending", "-o", "json"], capsys)
    assert code == 0, err
    assert json.loads(out)["result"] == "preempt"


def test_save_without_cluster_is_refused(tmp_path, capsys) -> None:
    code, _, err = run_cli(["schedule", *recorded_files(tmp_path), "--pod", "a/b", "--save",
                            str(tmp_path / "x.json")], capsys)
    assert code == 2 and "--save needs --cluster" in err


def test_no_input_at_all(capsys) -> None:
    code, _, err = run_cli(["schedule", "--pod", "a/b"], capsys)
    assert code == 2 and "--cluster" in err


def test_every_kind_a_command_reads_is_listable() -> None:
    from kubepreempt.kubelet.metrics import KIND as METRICS_KIND
    from kubepreempt.kueue.admission import KINDS as KUEUE_KINDS
    from kubepreempt.live.resources import FILE_ONLY_KINDS, listed

    for kinds in (SCHEDULER_KINDS, KUEUE_KINDS, (METRICS_KIND,)):
        assert {r.kind for r in listed(kinds)} == set(kinds) - FILE_ONLY_KINDS
    with pytest.raises(KeyError, match="Gizmo"):
        listed(("Gizmo",))


def test_rbac_example_grants_exactly_what_is_read() -> None:
    import yaml

    from kubepreempt.kubelet.metrics import KIND as METRICS_KIND
    from kubepreempt.kueue.admission import KINDS as KUEUE_KINDS
    from kubepreempt.live.resources import WORKLOAD_API_KINDS, listed

    role = yaml.safe_load((Path(__file__).parents[2] / "examples/live/rbac.yaml").read_text())
    granted = {(g, r): set(rule["verbs"]) for rule in role["rules"]
               for g in rule["apiGroups"] for r in rule["resources"]}
    needed: dict[tuple[str, str], set[str]] = {}
    for kinds, verbs in ((SCHEDULER_KINDS, {"get", "list", "watch"}),
                         (WORKLOAD_API_KINDS, {"get", "list", "watch"}),
                         (KUEUE_KINDS, {"get", "list", "watch"}),
                         ((METRICS_KIND,), {"get", "list"})):
        for res in listed(kinds):
            needed.setdefault((res.group, res.plural), set()).update(verbs)
    assert granted == needed  # read-only, and nothing a command does not read


def test_progress_bar_only_on_a_terminal_and_only_for_big_lists(monkeypatch) -> None:
    import io

    from rich.console import Console

    from kubepreempt.live import snapshot

    with snapshot.progress_bar(True) as update:  # pytest's stderr is not a terminal
        assert update is None
    buf = io.StringIO()
    monkeypatch.setattr(snapshot, "Console", lambda stderr: Console(
        file=buf, force_terminal=True, width=100))
    with snapshot.progress_bar(False) as update:
        assert update is None
    with snapshot.progress_bar(True) as update:
        assert update is not None
        update(RESOURCES["Node"], 12, 12)  # small: no bar
        update(PODS, 500, 50_000)
        update(PODS, 50_000, 50_000)
    text = buf.getvalue()
    assert "listing pods" in text and "nodes" not in text


def test_pods_of_a_node_deleted_between_lists_are_skipped(httpserver, kubeconfig,
                                                          capsys) -> None:
    serve_lists(httpserver, skip=("nodes",))
    nodes = list_body("nodes")
    nodes["items"] = [n for n in nodes["items"] if n["metadata"]["name"] != "worker-00"]
    httpserver.expect_request("/api/v1/nodes").respond_with_json(nodes)
    on_worker_00 = sum(p["spec"].get("nodeName") == "worker-00"
                       for p in list_body("pods-all")["items"])
    code, out, err = run_cli(["schedule", "--kubeconfig", str(kubeconfig), "--pod",
                              "shop/checkout-0", "-o", "json"], capsys)
    assert code == 0, err
    assert err == f"warning: skipped {on_worker_00} pod(s) bound to nodes that were deleted " \
        "while the cluster was being read\n"
    assert json.loads(out)["node"] != "worker-00"
