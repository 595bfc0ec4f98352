"""``watch``: the recorded watch stream of kube-apiserver v1.36.2 through reflectors,
410 re-lists, reconnects, predictions compared with the scheduler's recorded actions,
the report tally, Ctrl-C, and a long replay with flat memory."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest
from builders.live import (
    WATCH_QUERY,
    actual,
    exec_plugin,
    run_watch,
    serve_others,
    sync_events,
)
from conftest import (
    TOKEN,
    VERSION,
    recording,
    response,
    serve_lists,
)
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from kubepreempt.api.errors import InputError
from kubepreempt.cluster import SCHEDULER_KINDS
from kubepreempt.live.reflector import Event
from kubepreempt.live.watcher import Watcher


class PodsEndpoint:
    """/api/v1/pods: the recorded list, and watch answers served in turn from ``watches``
    (then empty streams). Records every query."""

    def __init__(self, watches: list[str]) -> None:
        self.watches = list(watches)
        self.queries: list[str] = []

    def __call__(self, request: Request) -> Response:
        query = request.query_string.decode()
        self.queries.append(query)
        assert request.headers["Authorization"] == f"Bearer {TOKEN}"
        if "watch=1" not in query:
            return response("pods-all")
        if self.watches:
            return response(self.watches.pop(0))
        return Response("", status=200, content_type="application/json")


def serve(server: HTTPServer, pods: PodsEndpoint) -> None:
    server.expect_request("/api/v1/pods").respond_with_handler(pods)
    server.expect_request("/version").respond_with_json(VERSION)
    serve_others(server)


def test_recorded_stream_predictions_and_comparisons(httpserver, kubeconfig, tmp_path) -> None:
    pods = PodsEndpoint(["pods-watch"])
    serve(httpserver, pods)
    report = tmp_path / "report.json"
    lines, _, watcher = run_watch(
        kubeconfig, lambda ls: len(pods.queries) >= 3 and any(
            x["event"] == "actual" and x["pod"] == "shop/checkout-0" for x in ls),
        report=str(report))
    # The list, then a watch from the list's resourceVersion exactly as recorded, then,
    # when the server ended that stream, a new watch from the last bookmark's version.
    assert pods.queries[0] == "limit=500"
    assert pods.queries[1] == WATCH_QUERY
    assert pods.queries[2] == WATCH_QUERY.replace("resourceVersion=451",
                                                  "resourceVersion=457")
    predicted = [x["pod"] for x in lines if x["event"] == "prediction"]
    # Both pods pending at list time, then checkout-1 when it was created.
    assert {"shop/checkout-0", "batch/etl-pending", "shop/checkout-1"} <= set(predicted)
    # The scheduler bound checkout-1 to worker-05 (recorded); the prediction is compared.
    [bound] = actual(lines, "shop/checkout-1")
    assert bound["action"] == "bound" and bound["node"] == "worker-05"
    assert bound["agree"] == (bound["predicted"]["node"] == "worker-05")
    # It nominated checkout-0 to worker-01: 4 victims on any of the ten batch workers are
    # equally good by every upstream criterion, so another tied node still agrees.
    [nominated] = actual(lines, "shop/checkout-0")
    assert nominated["action"] == "nominated" and nominated["node"] == "worker-01"
    assert nominated["predicted"]["result"] == "preempt"
    assert nominated["agree"] is True
    assert nominated.get("tie", False) == (nominated["predicted"]["node"] != "worker-01")
    # etl-00005 was deleted: the snapshot lost it.
    assert ("batch", "etl-00005") not in watcher.store["Pod"]
    assert "batch/etl-00005" not in watcher.cluster().pods
    tally = json.loads(report.read_text())
    assert tally["compared"] == tally["agree"] + tally["differ"] == 2
    assert tally["byAction"]["nominated"] == {"agree": 1, "differ": 0}


def test_namespace_limits_the_pods_reported(httpserver, kubeconfig) -> None:
    pods = PodsEndpoint(["pods-watch"])
    serve(httpserver, pods)
    lines, _, _ = run_watch(kubeconfig, lambda ls: len(pods.queries) >= 3, namespace="batch")
    assert {x["pod"] for x in lines} == {"batch/etl-pending"}


def test_expired_watch_relists(httpserver, kubeconfig) -> None:
    pods = PodsEndpoint(["error-410-watch", "pods-watch"])
    serve(httpserver, pods)
    _, notices, _ = run_watch(kubeconfig, lambda ls: len(pods.queries) >= 4)
    # list, watch -> ERROR 410 event, list again, watch again from the new list's version.
    assert pods.queries[:4] == ["limit=500", WATCH_QUERY, "limit=500", WATCH_QUERY]
    assert any("410 Gone" in n and n.startswith("watch Pod") for n in notices)


def test_forbidden_watch_stops_with_an_input_error(httpserver, kubeconfig) -> None:
    serve_lists(httpserver, skip=("pods-all",))

    def pods(request: Request) -> Response:
        if "watch=1" in request.query_string.decode():
            return response("error-403")
        return response("pods-all")

    httpserver.expect_request("/api/v1/pods").respond_with_handler(pods)
    with pytest.raises(InputError, match="missing permission to watch pods"):
        run_watch(kubeconfig, lambda ls: False, timeout=10)


# ---- a long replay, straight into the watcher --------------------------------------

def _cycle(i: int) -> list[Event]:
    """A small pod arrives pending, is bound to worker-10 (where it fits), then deleted."""
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": f"job-{i}", "namespace": "batch", "uid": f"u{i}",
                        "resourceVersion": str(1000 + i)},
           "spec": {"containers": [{"name": "c", "resources": {
               "requests": {"cpu": "10m", "memory": "16Mi"}}}],
                    "schedulerName": "default-scheduler"},
           "status": {"phase": "Pending"}}
    bound = {**pod, "spec": {**pod["spec"], "nodeName": "worker-10"},
             "status": {"phase": "Running"}}
    return [Event("ADDED", "Pod", pod), Event("MODIFIED", "Pod", bound),
            Event("DELETED", "Pod", bound)]


def test_long_replay_keeps_memory_flat() -> None:
    lines: list[dict] = []
    watcher = Watcher(SCHEDULER_KINDS, lambda line: None)
    for event in sync_events():
        watcher.handle(event)
    watcher.settle()

    def replay(start: int, n: int) -> None:
        for i in range(start, start + n):
            for event in _cycle(i):
                watcher.handle(event)
            if i % 50 == 0:
                watcher.settle()

    replay(0, 300)  # warm up caches
    tracemalloc.start()
    replay(300, 300)
    first = tracemalloc.get_traced_memory()[0]
    replay(600, 1500)
    second = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    # Five times the events, yet no more than a little noise (caches, freelists).
    assert second - first < 256 * 1024, (first, second)
    assert len(watcher.store["Pod"]) == 110 and len(watcher.cluster().pods) == 108
    assert watcher.predictions == {} or set(watcher.predictions) <= {
        "shop/checkout-0", "batch/etl-pending"}
    t = watcher.tally
    assert t.by_action["bound"]["agree"] + t.by_action["bound"]["differ"] == 2100
    assert len(t.differences) <= 100
    del lines


def test_watch_command_stops_cleanly_on_ctrl_c(httpserver, kubeconfig, tmp_path) -> None:
    pods = PodsEndpoint(["pods-watch"])
    serve(httpserver, pods)
    report = tmp_path / "report.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "kubepreempt", "watch", "--kubeconfig", str(kubeconfig),
         "-o", "json", "--report", str(report)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "HOME": str(tmp_path)})
    assert proc.stdout is not None
    seen = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(json.loads(line))  # every stdout line is one JSON object
        if seen[-1]["event"] == "actual" and seen[-1]["pod"] == "shop/checkout-0":
            break
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    assert "stopped:" in err
    assert all(json.loads(x) for x in out.splitlines())
    # every line names the release predicted as: the server's own (v1.36.2)
    assert {line["modelled"]["kubernetes"] for line in seen} == {"1.36"}
    assert "Kubernetes 1.36" in err
    assert json.loads(report.read_text())["compared"] == 2


def test_bookmark_moves_the_resource_version_on(httpserver, kubeconfig) -> None:
    rec = recording("pods-watch")
    # The recorded stream, with a later bookmark: a server sends one when nothing the
    # client watches changed, so the next watch starts from there.
    body = rec["body"].rstrip("\n") + "\n" + json.dumps(
        {"type": "BOOKMARK", "object": {"kind": "Pod", "apiVersion": "v1",
                                        "metadata": {"resourceVersion": "999"}}}) + "\n"
    pods = PodsEndpoint([])
    served = {"n": 0}

    def handler(request: Request) -> Response:
        query = request.query_string.decode()
        pods.queries.append(query)
        if "watch=1" not in query:
            return response("pods-all")
        served["n"] += 1
        return Response(body if served["n"] == 1 else "", content_type="application/json")

    httpserver.expect_request("/api/v1/pods").respond_with_handler(handler)
    serve_others(httpserver)
    run_watch(kubeconfig, lambda ls: len(pods.queries) >= 3)
    assert pods.queries[2] == WATCH_QUERY.replace("resourceVersion=451", "resourceVersion=999")


def test_node_deleted_before_its_pods_keeps_the_snapshot_usable() -> None:
    watcher = Watcher(SCHEDULER_KINDS, lambda line: None)
    for event in sync_events():
        watcher.handle(event)
    node = next(n for n in sync_events()[0].items if n["metadata"]["name"] == "worker-00")
    watcher.handle(Event("DELETED", "Node", node))
    cluster = watcher.cluster()  # its pods' DELETED events have not arrived yet
    assert "worker-00" not in cluster.node_index
    assert not any(p.node_name == "worker-00" for p in cluster.pods.values())
    assert len(watcher.store["Pod"]) == 110


def _pod(watcher: Watcher, key: str) -> dict:
    ns, name = key.split("/")
    return watcher.store["Pod"][(ns, name)]


def _mark_victim(obj: dict) -> dict:
    """What upstream's preemption patches onto a victim before deleting it."""
    status = dict(obj["status"])
    status["conditions"] = [*status.get("conditions", []), {
        "type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
        "message": "default-scheduler: preempting to accommodate a higher priority pod"}]
    return {**obj, "status": status}


@pytest.mark.parametrize("marked", [4, 3])
def test_victims_the_scheduler_marks_are_compared(marked: int) -> None:
    lines: list[dict] = []
    watcher = Watcher(SCHEDULER_KINDS, lines.append)
    for event in sync_events():
        watcher.handle(event)
    watcher.settle()
    pred = watcher.predictions["shop/checkout-0"]
    assert pred.result == "preempt" and "worker-01" in pred.candidates
    victims = pred.candidates["worker-01"]
    assert len(victims) == 4 and all(
        _pod(watcher, v)["spec"]["nodeName"] == "worker-01" for v in victims)
    # Upstream order: mark the victims, delete them, set nominatedNodeName; then bind.
    for v in victims[:marked]:
        watcher.handle(Event("MODIFIED", "Pod", _mark_victim(_pod(watcher, v))))
    preemptor = _pod(watcher, "shop/checkout-0")
    nominated = {**preemptor, "status": {**preemptor["status"],
                                         "nominatedNodeName": "worker-01"}}
    watcher.handle(Event("MODIFIED", "Pod", nominated))
    for v in victims[:marked]:
        watcher.handle(Event("DELETED", "Pod", _pod(watcher, v)))
    watcher.settle()
    watcher.handle(Event("MODIFIED", "Pod", {**nominated, "spec": {
        **nominated["spec"], "nodeName": "worker-01"}}))
    [line] = [x for x in lines if x.get("action") == "victims"]
    assert line["node"] == "worker-01"
    assert line["victims"] == sorted(victims[:marked])
    assert line["predicted"]["victims"] == sorted(victims)
    assert line["agree"] is (marked == 4)
    assert watcher.nominations == {}
    assert watcher.tally.by_action["victims"] == (
        {"agree": 1, "differ": 0} if marked == 4 else {"agree": 0, "differ": 1})
    # One decision: the nomination agreed, so the victims decide its verdict.
    assert (watcher.tally.agree, watcher.tally.differ) == ((1, 0) if marked == 4 else (0, 1))


def _synced_watcher(lines: list[dict] | None = None) -> Watcher:
    watcher = Watcher(SCHEDULER_KINDS, (lines if lines is not None else []).append)
    for event in sync_events():
        watcher.handle(event)
    watcher.settle()
    return watcher


def test_in_place_updates_decide_as_a_fresh_snapshot() -> None:
    from kubepreempt.decide import schedule

    watcher = _synced_watcher()
    for i in range(40):  # pods come, bind, some leave; a bound pod is deleted
        for event in _cycle(i)[: 2 if i % 3 else 3]:
            watcher.handle(event)
    watcher.handle(Event("DELETED", "Pod", _pod(watcher, "batch/etl-00013")))
    kept = watcher.cluster()
    fresh = watcher._build()
    assert sorted(kept.pods) == sorted(fresh.pods) and sorted(kept.pending) == sorted(
        fresh.pending)
    assert (kept.requested == fresh.requested).all()
    for key in ("shop/checkout-0", "batch/etl-pending"):
        assert schedule(kept, key).to_json(explain=True) == \
            schedule(fresh, key).to_json(explain=True)


def test_node_heartbeat_keeps_the_snapshot_but_a_taint_rebuilds_it() -> None:
    lines: list[dict] = []
    watcher = _synced_watcher(lines)
    before = watcher.cluster()
    node = watcher.store["Node"][("", "worker-00")]
    beat = {**node, "status": {**node["status"], "conditions": [
        {**c, "lastHeartbeatTime": "2026-11-24T04:00:00Z"}
        for c in node["status"].get("conditions", [])]}}
    watcher.handle(Event("MODIFIED", "Node", beat))
    watcher.settle()
    assert watcher.cluster() is before and len(lines) == 2  # nothing new to say
    # Taint every batch worker: checkout-0's candidates are gone, its prediction changes.
    for obj in list(watcher.store["Node"].values()):
        if not obj["spec"].get("taints"):
            tainted = {**obj, "spec": {**obj["spec"], "taints": [
                {"key": "maintenance", "effect": "NoSchedule"}]}}
            watcher.handle(Event("MODIFIED", "Node", tainted))
    watcher.settle()
    assert watcher.cluster() is not before
    last = [x for x in lines if x["pod"] == "shop/checkout-0"][-1]
    assert last["result"] == "unschedulable"
    assert "untolerated taint" in last["message"]


def test_an_invalid_object_is_reported_once_and_the_watch_goes_on() -> None:
    lines: list[dict] = []
    watcher = _synced_watcher(lines)
    node = watcher.store["Node"][("", "worker-03")]
    broken = {**node, "status": {**node["status"], "allocatable": {"cpu": "lots"}}}
    watcher.handle(Event("MODIFIED", "Node", broken))
    watcher.settle()
    for i in range(3):  # more pods arrive while the node is broken
        watcher.handle(_cycle(i)[0])
    errors = [x for x in lines if x["event"] == "error"]
    assert len(errors) == 1 and "worker-03" in errors[0]["message"]
    watcher.handle(Event("MODIFIED", "Node", node))  # fixed
    watcher.handle(_cycle(9)[0])
    assert lines[-1]["event"] == "prediction" and lines[-1]["pod"] == "batch/job-9"


def test_a_dropped_connection_resumes_from_the_last_event(httpserver, kubeconfig) -> None:
    lines_of = recording("pods-watch")["body"].splitlines()
    queries: list[str] = []

    def pods(request: Request) -> Response:
        query = request.query_string.decode()
        queries.append(query)
        if "watch=1" not in query:
            return response("pods-all")
        if len(queries) == 2:
            def broken():
                for line in lines_of[:3]:  # ADDED 452, MODIFIED 453, MODIFIED 454
                    yield line + "\n"
                raise ConnectionResetError("the load balancer dropped the stream")

            return Response(broken(), content_type="application/json")
        return Response("", content_type="application/json")

    httpserver.expect_request("/api/v1/pods").respond_with_handler(pods)
    serve_others(httpserver)
    lines, notices, _ = run_watch(kubeconfig, lambda ls: len(queries) >= 3)
    assert queries[2] == WATCH_QUERY.replace("resourceVersion=451", "resourceVersion=454")
    assert any(n.startswith("watch Pod: cannot reach the cluster") for n in notices)
    assert [x["node"] for x in lines if x["event"] == "actual"] == ["worker-05", "worker-01"]


def test_long_replay_over_http(httpserver, kubeconfig, tmp_path) -> None:
    cycles = 600
    events = []
    for i in range(cycles):
        for e in _cycle(i):
            obj = {k: v for k, v in e.obj.items() if k not in ("kind", "apiVersion")}
            events.append(json.dumps({"type": e.type, "object": obj}))
        if i % 100 == 99:  # a bookmark now and then, as the server sends them
            events.append(json.dumps({"type": "BOOKMARK", "object": {
                "kind": "Pod", "apiVersion": "v1",
                "metadata": {"resourceVersion": str(1000 + i)}}}))
    body = "\n".join(events) + "\n"
    served = {"n": 0}

    def pods(request: Request) -> Response:
        if "watch=1" not in request.query_string.decode():
            return response("pods-all")
        served["n"] += 1
        return Response(body if served["n"] == 1 else "", content_type="application/json")

    httpserver.expect_request("/api/v1/pods").respond_with_handler(pods)
    serve_others(httpserver)
    report = tmp_path / "report.json"
    _, _, watcher = run_watch(
        kubeconfig, lambda ls: sum(x.get("action") == "bound" for x in ls) >= cycles,
        report=str(report), timeout=120)
    tally = json.loads(report.read_text())
    assert tally["byAction"]["bound"]["agree"] + tally["byAction"]["bound"]["differ"] == cycles
    assert len(watcher.store["Pod"]) == 110  # every replayed pod came and went
    assert not any(k.startswith("batch/job-") for k in watcher.predictions)


def test_watch_connections_share_one_exec_credential(httpserver, tmp_path) -> None:
    from conftest import write_kubeconfig

    pods = PodsEndpoint(["pods-watch"])  # checks every pods request carries TOKEN
    serve(httpserver, pods)
    runs = tmp_path / "runs.txt"
    version = "client.authentication.k8s.io/v1"
    kc = write_kubeconfig(tmp_path / "kc", httpserver.url_for("/").rstrip("/"), {"exec": {
        "apiVersion": version, "command": str(exec_plugin(tmp_path, version, TOKEN)),
        "args": [str(runs)], "env": [{"name": "PLUGIN_ENV", "value": "from-kubeconfig"}]}})
    run_watch(kc, lambda ls: len(pods.queries) >= 3)
    assert runs.read_text() == "ran\n"  # ten streams, one plugin run


def test_scheduler_config_changes_the_predictions() -> None:
    """``watch --scheduler-config``: the cluster's own configuration decides. On the
    recorded cluster checkout-0 preempts under the default profile; with DefaultPreemption
    disabled (examples/scheduler-config/no-preemption.yaml) it stays unschedulable, and the
    message has no "preemption:" part."""
    from kubepreempt.scheduler.config import load_scheduler_config

    config = load_scheduler_config(str(Path(__file__).resolve().parents[2] / "examples"
                                       / "scheduler-config" / "no-preemption.yaml"))
    found = {}
    for name, cfg in (("default", None), ("no-preemption", config)):
        lines: list[dict] = []
        watcher = Watcher(SCHEDULER_KINDS, lines.append, scheduler_config=cfg)
        for event in sync_events():
            watcher.handle(event)
        watcher.settle()
        [pred] = [x for x in lines if x["event"] == "prediction"
                  and x["pod"] == "shop/checkout-0"]
        found[name] = pred
    assert found["default"]["result"] == "preempt"
    assert found["no-preemption"]["result"] == "unschedulable"
    assert "preemption:" not in found["no-preemption"]["message"]
