"""``watch`` as a long-running service: the faults real API servers produce (429/5xx with
and without Retry-After, 401/404, 410 re-lists, deletions of unseen pods, objects of another
kind, streams that work then drop, SIGTERM) served by a local fake API server on 127.0.0.1,
and a tally that counts each scheduling decision once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from builders.live import WATCH_QUERY, actual, run_watch, serve_others, sync_events
from conftest import TOKEN, list_body, recording, response
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from kubepreempt.api.errors import InputError
from kubepreempt.cluster import SCHEDULER_KINDS
from kubepreempt.live.backoff import RetryPolicy
from kubepreempt.live.client import ApiClient, ServerBusy
from kubepreempt.live.kubeconfig import resolve
from kubepreempt.live.reflector import Event, Reflector
from kubepreempt.live.resources import FILE_ONLY_KINDS, listed
from kubepreempt.live.watcher import Watcher

WATCH_LINES = recording("pods-watch")["body"].splitlines()


def status(code: int, reason: str, message: str, retry_after: int | None = None) -> Response:
    """A ``kind: Status`` failure as kube-apiserver writes it (429 from API priority and
    fairness, 5xx from an overloaded or restarting server)."""
    body: dict = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                  "message": message, "reason": reason, "code": code}
    headers = {}
    if retry_after is not None:
        body["details"] = {"retryAfterSeconds": retry_after}
        headers["Retry-After"] = str(retry_after)
    return Response(json.dumps(body), status=code, headers=headers,
                    content_type="application/json")


class Script:
    """/api/v1/pods answering from two scripts, one for lists and one for watches (a
    callable or a recording name; then the recorded list / an empty stream)."""

    def __init__(self, lists: list = (), watches: list = ()) -> None:
        self.lists, self.watches = list(lists), list(watches)
        self.queries: list[str] = []

    def __call__(self, request: Request) -> Response:
        query = request.query_string.decode()
        self.queries.append(query)
        assert request.headers["Authorization"] == f"Bearer {TOKEN}"
        script = self.watches if "watch=1" in query else self.lists
        if not script:
            return (Response("", content_type="application/json") if "watch=1" in query
                    else response("pods-all"))
        step = script.pop(0)
        return step() if callable(step) else response(step)


def serve(server: HTTPServer, pods: Script) -> None:
    server.expect_request("/api/v1/pods").respond_with_handler(pods)
    serve_others(server)


def recording_sleep(waits: list[float]):
    """A RetryPolicy sleep that notes each wait the pods reflector asks for, and waits
    10 ms instead."""
    def sleep(stop: threading.Event, seconds: float) -> None:
        if threading.current_thread().name == "watch-pods":
            waits.append(seconds)
        stop.wait(0.01)
    return sleep


def stream(*lines: str) -> Response:
    return Response("".join(f"{line}\n" for line in lines), content_type="application/json")


# ---- 1. 429 and 5xx are retried, with backoff and Retry-After ------------------------

def test_server_errors_are_retried_and_the_watch_goes_on(httpserver, kubeconfig) -> None:
    pods = Script(
        lists=[lambda: status(503, "ServiceUnavailable", "etcd leader changed", 2)],
        watches=[lambda: status(429, "TooManyRequests",
                                "Too many requests, please try again later.", 1),
                 lambda: status(500, "InternalError", "etcdserver: request timed out"),
                 "pods-watch"])
    serve(httpserver, pods)
    waits: list[float] = []
    lines, notices, _ = run_watch(
        kubeconfig, lambda ls: bool(actual(ls, "shop/checkout-0")),
        retry=RetryPolicy(initial=0.05, cap=0.2, sleep=recording_sleep(waits)))
    # list 503 -> list -> watch 429 -> watch 500 -> the recorded stream (from the list's RV)
    assert pods.queries[:5] == ["limit=500", "limit=500", WATCH_QUERY, WATCH_QUERY,
                                WATCH_QUERY]
    pod_notes = [n for n in notices if n.startswith("watch Pod:")]
    assert "HTTP 503: etcd leader changed; retrying in 2 s" in pod_notes[0]
    assert "HTTP 429: Too many requests" in pod_notes[1] and pod_notes[1].endswith(
        "retrying in 1 s")
    assert "HTTP 500: etcdserver: request timed out; retrying in 0.2 s" in pod_notes[2]
    # Retry-After is a floor on the backoff (0.05 doubling); the 500 had none.
    assert waits[:3] == [2.0, 1.0, 0.2]
    assert [x["node"] for x in lines if x["event"] == "actual"] == ["worker-05", "worker-01"]


@pytest.mark.parametrize(("name", "match"), [
    ("error-401", "unauthorized \\(401\\)"),
    ("error-403", "missing permission to watch pods"),
])
def test_refusals_stay_fatal(httpserver, kubeconfig, name, match) -> None:
    serve(httpserver, Script(watches=[name]))
    with pytest.raises(InputError, match=match):
        run_watch(kubeconfig, lambda ls: False, timeout=10)


def test_a_required_kind_not_served_is_fatal(httpserver, kubeconfig) -> None:
    httpserver.expect_request("/apis/scheduling.k8s.io/v1/priorityclasses").respond_with_response(
        response("error-404"))
    serve(httpserver, Script())
    with pytest.raises(InputError, match="priorityclasses.scheduling.k8s.io is not served "
                                         "by this cluster \\(404\\)"):
        run_watch(kubeconfig, lambda ls: False, timeout=10)


def test_one_shot_get_retries_as_retry_after_asks(httpserver, kubeconfig) -> None:
    answers = [status(503, "ServiceUnavailable", "busy", 0),
               status(429, "TooManyRequests", "slow down", 3), response("nodes")]
    httpserver.expect_request("/api/v1/nodes").respond_with_handler(lambda r: answers.pop(0))
    waits: list[float] = []
    with ApiClient(resolve(str(kubeconfig)), sleep=waits.append) as client:
        body = client.get("/api/v1/nodes")
    assert json.loads(body)["kind"] == "NodeList" and waits == [0.0, 3.0]


def test_one_shot_get_says_how_often_it_retried(httpserver, kubeconfig) -> None:
    httpserver.expect_request("/api/v1/pods").respond_with_handler(
        lambda r: status(503, "ServiceUnavailable", "busy", 0))
    httpserver.expect_request("/api/v1/nodes").respond_with_handler(
        lambda r: status(500, "InternalError", "boom"))
    waits: list[float] = []
    with ApiClient(resolve(str(kubeconfig)), sleep=waits.append) as client:
        with pytest.raises(ServerBusy, match="HTTP 503: busy \\(10 retries as its "
                                             "Retry-After asked\\)$"):
            client.get("/api/v1/pods", verb="list")
        assert waits == [0.0] * 10  # client-go's rest client: at most 10
        with pytest.raises(ServerBusy, match="HTTP 500: boom \\(not retried: the server "
                                             "sent no Retry-After\\)$"):
            client.get("/api/v1/nodes", verb="list")
    assert len(waits) == 10


# ---- 8. the backoff resets after a quiet spell ---------------------------------------

def test_backoff_doubles_to_the_cap_and_resets_after_two_quiet_minutes() -> None:
    now = [0.0]
    backoff = RetryPolicy(clock=lambda: now[0]).backoff()
    delays = []
    for _ in range(8):
        delays.append(backoff.delay())
        now[0] += 1
    assert delays == [0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 30.0, 30.0]
    now[0] += 119  # 120 s since the last failure
    assert backoff.delay() == 0.8


@pytest.mark.parametrize("hours_apart", [False, True])
def test_streams_that_work_then_drop_hours_apart_reconnect_at_once(
        httpserver, kubeconfig, hours_apart) -> None:
    def one_event_then_drop() -> Response:
        def body():
            yield WATCH_LINES[0] + "\n"
            raise ConnectionResetError("dropped")
        return Response(body(), content_type="application/json")

    httpserver.expect_request("/api/v1/pods").respond_with_handler(
        lambda r: one_event_then_drop() if "watch=1" in r.query_string.decode()
        else response("pods-all"))
    now = [0.0]
    waits: list[float] = []
    stop = threading.Event()

    def sleep(stop_: threading.Event, seconds: float) -> None:
        waits.append(seconds)
        now[0] += 3 * 3600 if hours_apart else 1  # the next drop comes this much later
        if len(waits) == 5:
            stop.set()

    events: list[Event] = []
    with ApiClient(resolve(str(kubeconfig)), max_retries=0) as client:
        [pods] = listed(("Pod",))
        Reflector(client, pods, events.append, stop,
                  retry=RetryPolicy(clock=lambda: now[0], sleep=sleep)).run()
    assert waits == ([0.8] * 5 if hours_apart else [0.8, 1.6, 3.2, 6.4, 12.8])
    assert sum(e.type == "ADDED" for e in events) == 5  # each stream worked


# ---- 2. a re-list is compared like the events it stands for -------------------------

def test_relist_compares_pods_bound_and_drops_pods_deleted_during_the_gap(
        httpserver, kubeconfig) -> None:
    later = list_body("pods-all")
    later["metadata"]["resourceVersion"] = "480"
    items = []
    for pod in later["items"]:
        name = pod["metadata"]["name"]
        if name == "checkout-0":
            continue  # deleted while the watch was away
        if name == "etl-pending":  # bound while the watch was away
            pod = {**pod, "metadata": {**pod["metadata"], "resourceVersion": "479"},
                   "spec": {**pod["spec"], "nodeName": "worker-10"},
                   "status": {**pod["status"], "phase": "Running"}}
        items.append(pod)
    later["items"] = items
    relisted = json.dumps(later)
    pods = Script(lists=["pods-all", lambda: Response(relisted,
                                                      content_type="application/json")],
                  watches=["error-410-watch"])
    serve(httpserver, pods)
    lines, notices, watcher = run_watch(
        kubeconfig, lambda ls: len(pods.queries) >= 4 and bool(actual(ls, "batch/etl-pending")))
    assert any("410 Gone" in n for n in notices)
    [bound] = actual(lines, "batch/etl-pending")
    assert bound["action"] == "bound" and bound["node"] == "worker-10"
    assert bound["agree"] == (bound["predicted"]["node"] == "worker-10")
    assert watcher.predictions == {}  # checkout-0's went with it
    assert ("shop", "checkout-0") not in watcher.store["Pod"]
    assert "shop/checkout-0" not in watcher.cluster().pending
    assert watcher.tally.agree + watcher.tally.differ == 1


def test_an_unchanged_relist_says_nothing() -> None:
    lines: list[dict] = []
    watcher = synced(lines)
    before = len(lines)
    pods = [{"apiVersion": "v1", "kind": "Pod", **i} for i in list_body("pods-all")["items"]]
    watcher.handle(Event("SYNC", "Pod", items=pods))
    watcher.settle()
    assert len(lines) == before and watcher.tally.predictions == 2


# ---- 3. a deletion of a pod never seen ------------------------------------------------

def test_deletion_of_an_unseen_pod_is_ignored(httpserver, kubeconfig) -> None:
    ghost = json.loads(WATCH_LINES[0])
    ghost["type"] = "DELETED"
    ghost["object"]["metadata"]["name"] = "never-listed"
    serve(httpserver, Script(watches=[lambda: stream(json.dumps(ghost), *WATCH_LINES)]))
    lines, _, watcher = run_watch(kubeconfig, lambda ls: bool(actual(ls, "shop/checkout-0")))
    assert [x["node"] for x in lines if x["event"] == "actual"] == ["worker-05", "worker-01"]
    assert ("shop", "never-listed") not in watcher.store["Pod"]


# ---- 7. an object of another kind on the pods stream ---------------------------------

def test_an_object_of_another_kind_is_dropped_with_a_warning(httpserver, kubeconfig) -> None:
    node = list_body("nodes")["items"][0]
    stray = json.dumps({"type": "ADDED", "object": {
        "kind": "Node", "apiVersion": "v1",
        **{**node, "metadata": {**node["metadata"], "resourceVersion": "460"}}}})
    pods = Script(watches=[lambda: stream(stray, *WATCH_LINES)])
    serve(httpserver, pods)
    lines, notices, watcher = run_watch(
        kubeconfig, lambda ls: bool(actual(ls, "shop/checkout-0")) and len(pods.queries) >= 3)
    assert [n for n in notices if "carried" in n] == [
        "watch Pod: expected Pod, but a ADDED event carried a Node; dropped"]
    assert ("", node["metadata"]["name"]) not in watcher.store["Pod"]
    assert [x["node"] for x in lines if x["event"] == "actual"] == ["worker-05", "worker-01"]
    # Its resourceVersion was not taken either: the stream resumes from the bookmark.
    assert pods.queries[2] == WATCH_QUERY.replace("resourceVersion=451", "resourceVersion=457")


# ---- 4. SIGTERM -----------------------------------------------------------------------

def test_sigterm_stops_like_ctrl_c(httpserver, kubeconfig, tmp_path) -> None:
    serve(httpserver, Script(watches=["pods-watch"]))
    report = tmp_path / "report.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "kubepreempt", "watch", "--kubeconfig", str(kubeconfig),
         "-o", "json", "--report", str(report)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "HOME": str(tmp_path)})
    assert proc.stdout is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line or (json.loads(line)["event"] == "actual"
                        and json.loads(line)["pod"] == "shop/checkout-0"):
            break
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    tally = json.loads(report.read_text())  # written on the way out
    assert tally["compared"] == 2
    assert err.splitlines()[-1] == (f"stopped: {tally['predictions']} predictions, "
                                    f"{tally['agree']} agreed, {tally['differ']} differed")


# ---- 5 and 6. two preemptions on one node: one comparison each, their own victims -----

def synthetic(objects: dict[str, list[dict]]) -> list[Event]:
    """SYNC events for every watched kind (empty unless given)."""
    return [Event("SYNC", kind, items=objects.get(kind, []))
            for kind in SCHEDULER_KINDS if kind not in FILE_ONLY_KINDS]


def pod(name: str, cpu: str, priority: str, node: str | None = None, start: int = 0) -> dict:
    obj = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}",
                        "resourceVersion": "1"},
           "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}],
                    "priorityClassName": priority, "schedulerName": "default-scheduler"},
           "status": {"phase": "Pending"}}
    if node:
        obj["spec"]["nodeName"] = node
        obj["status"] = {"phase": "Running", "startTime": f"2026-11-24T03:{start:02d}:00Z"}
    return obj


def priority_class(name: str, value: int) -> dict:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
            "metadata": {"name": name}, "value": value}


def marked(obj: dict) -> dict:
    """What upstream's preemption patches onto a victim before deleting it."""
    return {**obj, "status": {**obj["status"], "conditions": [{
        "type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
        "message": "default-scheduler: preempting to accommodate a higher priority pod"}]}}


def preempt_as_upstream(watcher: Watcher, name: str, node: str) -> None:
    """Upstream's order for one preemption: mark the victims, delete them, write the
    preemptor's nominatedNodeName (with PodScheduled=False); once the victims are gone the
    preemptor is scheduled again and bound."""
    victims = watcher.predictions[f"default/{name}"].victims
    stored = {v: watcher.store["Pod"][("default", v.split("/")[1])] for v in victims}
    for obj in stored.values():
        watcher.handle(Event("MODIFIED", "Pod", marked(obj)))
    for v in stored:
        watcher.handle(Event("DELETED", "Pod", watcher.store["Pod"][("default",
                                                                     v.split("/")[1])]))
    preemptor = watcher.store["Pod"][("default", name)]
    nominated = {**preemptor, "status": {**preemptor["status"], "nominatedNodeName": node,
                                         "conditions": [{"type": "PodScheduled",
                                                         "status": "False",
                                                         "reason": "Unschedulable",
                                                         "message": "preempting"}]}}
    watcher.handle(Event("MODIFIED", "Pod", nominated))
    watcher.settle()  # the victims left: the preemptor is re-predicted (scheduled on node)
    assert watcher.predictions[f"default/{name}"].result == "scheduled"
    watcher.handle(Event("MODIFIED", "Pod", {**nominated, "spec": {**nominated["spec"],
                                                                    "nodeName": node}}))


def test_each_preemption_on_a_node_is_compared_once_with_its_own_victims() -> None:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {
        "kubernetes.io/hostname": "n1"}}, "spec": {}, "status": {
        "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
        "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
    low = [pod(f"low-{i}", "1", "low", "n1", start=i) for i in range(4)]
    lines: list[dict] = []
    watcher = Watcher(SCHEDULER_KINDS, lines.append)
    for event in synthetic({"Node": [node], "Pod": low, "Namespace": [
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}],
            "PriorityClass": [priority_class("low", 100), priority_class("high", 1000)]}):
        watcher.handle(event)
    watcher.settle()
    for name in ("a", "b"):
        watcher.handle(Event("ADDED", "Pod", pod(name, "2", "high")))
        assert watcher.predictions[f"default/{name}"].result == "preempt"
        assert len(watcher.predictions[f"default/{name}"].victims) == 2
        preempt_as_upstream(watcher, name, "n1")
    verdicts = [(x["pod"], x["action"], x["agree"]) for x in lines if x["event"] == "actual"]
    assert verdicts == [("default/a", "nominated", True), ("default/a", "victims", True),
                        ("default/b", "nominated", True), ("default/b", "victims", True)]
    victims = [x["victims"] for x in lines if x.get("action") == "victims"]
    assert sorted(victims[0] + victims[1]) == [f"default/low-{i}" for i in range(4)]
    t = watcher.tally
    assert (t.agree, t.differ) == (2, 0)  # two decisions
    assert t.by_action == {"nominated": {"agree": 2, "differ": 0},
                           "victims": {"agree": 2, "differ": 0}}
    assert watcher.marked_victims == type(watcher.marked_victims)() and not watcher.nominations


def synced(lines: list[dict]) -> Watcher:
    watcher = Watcher(SCHEDULER_KINDS, lines.append)
    for event in sync_events():
        watcher.handle(event)
    watcher.settle()
    return watcher


def test_victims_marked_for_an_out_of_scope_preemptor_are_not_inherited() -> None:
    """-n shop: a batch pod's preemption on worker-01 is not reported, but its victims
    are still taken by its own nomination, not by checkout-0's."""
    lines: list[dict] = []
    watcher = Watcher(SCHEDULER_KINDS, lines.append, namespace="shop")
    for event in sync_events():
        watcher.handle(event)
    watcher.settle()
    expected = watcher.predictions["shop/checkout-0"].candidates["worker-01"]
    on_node = [k for k, o in watcher.store["Pod"].items()
               if o["spec"].get("nodeName") == "worker-01" and f"{k[0]}/{k[1]}" not in expected]
    other = {**watcher.store["Pod"][("batch", "etl-pending")]}
    for key in on_node[:1]:  # the batch preemption's victim, then its nomination
        watcher.handle(Event("MODIFIED", "Pod", marked(watcher.store["Pod"][key])))
    watcher.handle(Event("MODIFIED", "Pod", {**other, "metadata": {
        **other["metadata"], "resourceVersion": "999"}, "status": {
        **other["status"], "nominatedNodeName": "worker-01"}}))
    for v in expected:
        ns, name = v.split("/")
        watcher.handle(Event("MODIFIED", "Pod", marked(watcher.store["Pod"][(ns, name)])))
    preemptor = watcher.store["Pod"][("shop", "checkout-0")]
    nominated = {**preemptor, "status": {**preemptor["status"],
                                         "nominatedNodeName": "worker-01"}}
    watcher.handle(Event("MODIFIED", "Pod", nominated))
    watcher.handle(Event("MODIFIED", "Pod", {**nominated, "spec": {
        **nominated["spec"], "nodeName": "worker-01"}}))
    [line] = [x for x in lines if x.get("action") == "victims"]
    assert line["victims"] == sorted(expected) and line["agree"] is True


def test_victims_hidden_by_a_relist_are_not_compared() -> None:
    """The watch saw the nomination, then was away (410) while the victims were deleted and
    the preemptor bound: the re-list shows the binding (the nomination's decision, not
    compared again) but not which pods were marked, so no victims verdict is made up."""
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "spec": {},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}
    low = [pod(f"low-{i}", "1", "low", "n1", start=i) for i in range(4)]
    lines: list[dict] = []
    watcher = Watcher(SCHEDULER_KINDS, lines.append)
    for event in synthetic({"Node": [node], "Pod": low, "PriorityClass": [
            priority_class("low", 100), priority_class("high", 1000)]}):
        watcher.handle(event)
    watcher.handle(Event("ADDED", "Pod", pod("a", "2", "high")))
    victims = {v.split("/")[1] for v in watcher.predictions["default/a"].victims}
    a = watcher.store["Pod"][("default", "a")]
    watcher.handle(Event("MODIFIED", "Pod", {**a, "metadata": {**a["metadata"],
                                                               "resourceVersion": "2"},
                                             "status": {**a["status"],
                                                        "nominatedNodeName": "n1"}}))
    relisted = [p for p in low if p["metadata"]["name"] not in victims] + [
        {**a, "metadata": {**a["metadata"], "resourceVersion": "9"},
         "spec": {**a["spec"], "nodeName": "n1"}, "status": {"phase": "Running"}}]
    watcher.handle(Event("SYNC", "Pod", items=relisted))
    assert [(x["action"], x["agree"]) for x in lines if x["event"] == "actual"] == [
        ("nominated", True)]
    assert (watcher.tally.agree, watcher.tally.differ) == (1, 0)
    assert not watcher.nominations and not watcher.predictions
