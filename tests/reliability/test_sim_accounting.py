"""The simulator's JSON accounts for every pod: arrived = pending + running + terminating +
completed + preempted (and gone) + removed (with its node) + rejected + terminated.

The oracle is independent of the engine's bookkeeping: which pods arrive is computed from
the generated scenario (arrival + i * interval), and each pod's end state from the last
timeline event that concerns it.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st
from profiles import examples

from kubepreempt.cli import main

CLASSES = {"low": 100, "mid": 1000, "high": 10000}
P = "kubepreempt.io/"


@st.composite
def scenarios(draw) -> tuple[list[dict], dict[str, float], float | None]:
    """Documents, each pod's arrival time, and the --until bound (None: run until idle)."""
    docs: list[dict] = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                         "metadata": {"name": n}, "value": v} for n, v in CLASSES.items()]
    nodes = [f"n{i}" for i in range(draw(st.integers(1, 3)))]
    for name in nodes:
        ann = {}
        if draw(st.booleans()) and len(nodes) > 1:
            ann[P + "removal"] = str(draw(st.integers(1, 200)))
        docs.append({"apiVersion": "v1", "kind": "Node",
                     "metadata": {"name": name, "annotations": ann},
                     "status": {"allocatable": {"cpu": str(draw(st.integers(1, 4))),
                                                "memory": "16Gi", "pods": "110"}}})
    arrivals: dict[str, float] = {}
    for t in range(draw(st.integers(1, 6))):
        ann: dict[str, str] = {}
        spec: dict = {"priorityClassName": draw(st.sampled_from(sorted(CLASSES))),
                      "terminationGracePeriodSeconds": draw(st.sampled_from([0, 5, 30, 300])),
                      "containers": [{"name": "c", "resources": {"requests": {
                          "cpu": str(draw(st.integers(1, 3)))}}}]}
        running = draw(st.integers(0, 4)) == 0
        if running:  # running at time 0 on a node
            spec["nodeName"] = draw(st.sampled_from(nodes))
            arrival, replicas, step = 0.0, 1, 0
        else:
            arrival = float(draw(st.integers(0, 100)))
            replicas = draw(st.integers(1, 4))
            step = draw(st.integers(0, 20))
            ann[P + "arrival"] = str(int(arrival))
            if replicas > 1:
                ann[P + "replicas"] = str(replicas)
                ann[P + "interval"] = str(step)
            if draw(st.integers(0, 5)) == 0:
                spec["nodeName"] = draw(st.sampled_from(nodes))  # straight to the kubelet
                replicas = 1
                ann.pop(P + "replicas", None)
                ann.pop(P + "interval", None)
        if draw(st.booleans()):
            ann[P + "duration"] = str(draw(st.integers(1, 150)))
        name = f"t{t}"
        docs.append({"apiVersion": "v1", "kind": "Pod",
                     "metadata": {"name": name, "namespace": "default", "annotations": ann},
                     "spec": spec})
        if replicas == 1:
            arrivals[f"default/{name}"] = arrival
        else:
            for i in range(replicas):
                arrivals[f"default/{name}-{i}"] = arrival + i * step
    until = draw(st.one_of(st.none(), st.integers(0, 150).map(float)))
    return docs, arrivals, until


def _state_from_timeline(events: list[dict], key: str, running_at_start: bool) -> str:
    signalled = ""  # the first signal: preempted (scheduler) or evicted (kubelet)
    last = None
    for e in events:
        if e["pod"] != key:
            continue
        if e["type"] in ("preempted", "evicted") and not signalled:
            signalled = e["type"]
        last = e
    if last is None:
        return "running" if running_at_start else "pending"
    kind = last["type"]
    if kind in ("arrived", "unschedulable", "nominated", "nomination-cleared"):
        return "pending"
    if kind == "bound":
        return "running"
    if kind == "preempted":
        return "terminating"
    if kind == "evicted":
        # Without --node-pressure an eviction is the kubelet's admission signal (the pod
        # terminates later) unless its node was removed (the pod is deleted at once).
        return "removed" if last["detail"] == "node removed" else "terminating"
    if kind == "terminated":
        return signalled or "terminated"
    return {"completed": "completed", "rejected": "rejected"}[kind]


def _preemption_cut_short() -> tuple[list[dict], dict[str, float], float]:
    """A pod preempted at 10 s with a 300 s grace period, the run cut at 50 s: it ends
    terminating (random scenarios rarely stop inside a grace period)."""
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n0"},
            "status": {"allocatable": {"cpu": "2", "memory": "16Gi", "pods": "110"}}}
    ctr = [{"name": "c", "resources": {"requests": {"cpu": "2"}}}]
    low = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "a", "namespace": "default", "annotations": {}},
           "spec": {"nodeName": "n0", "priorityClassName": "low",
                    "terminationGracePeriodSeconds": 300, "containers": ctr}}
    high = {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "b", "namespace": "default",
                         "annotations": {P + "arrival": "10"}},
            "spec": {"priorityClassName": "high", "containers": ctr}}
    classes = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                "metadata": {"name": n}, "value": v} for n, v in CLASSES.items()]
    return [*classes, node, low, high], {"default/a": 0.0, "default/b": 10.0}, 50.0


@settings(max_examples=examples(60), deadline=None)
@given(scenarios())
@example(_preemption_cut_short())
def test_every_pod_is_accounted_for(tmp_path_factory, scenario) -> None:
    docs, arrivals, until = scenario
    path = Path(tmp_path_factory.mktemp("acc")) / "scenario.yaml"
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    args = ["simulate", str(path), "-o", "json", "--max-rows", "0"]
    if until is not None:
        args += ["--until", str(until)]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    assert code == 0, err.getvalue()
    result = json.loads(out.getvalue())
    end = result["end"]
    expected = {k for k, t in arrivals.items() if t <= end}
    assert set(result["pods"]) == expected
    acc = result["metrics"]["accounting"]
    assert acc["arrived"] == len(expected)
    assert sum(v for k, v in acc.items() if k != "arrived") == acc["arrived"]
    initial = {f"default/{d['metadata']['name']}" for d in docs
               if d["kind"] == "Pod" and P + "arrival" not in d["metadata"]["annotations"]}
    tally: dict[str, int] = {}
    for key, rec in result["pods"].items():
        want = _state_from_timeline(result["events"], key, key in initial)
        assert rec["state"] == want, (key, rec, want)
        tally[want] = tally.get(want, 0) + 1
    assert {k: v for k, v in acc.items() if k != "arrived" and v} == tally
