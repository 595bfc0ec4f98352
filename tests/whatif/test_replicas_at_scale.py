"""Identical pending replicas answered once, the --max-pods refusal, and the warning for a
Node given with -f."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from builders import cluster_of, docs_of, node, priority_class

from kubepreempt.cli import main
from kubepreempt.whatif import place as place_module
from kubepreempt.whatif.advise import fresh
from kubepreempt.whatif.place import what_if

CLASSES = (priority_class("low", 100), priority_class("high", 1000))


def deployment(name: str, replicas: int, cpu: str, pc: str = "high") -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": "shop"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"priorityClassName": pc, "containers": [
                                      {"name": "c", "image": "x:1",
                                       "resources": {"requests": {"cpu": cpu}}}]}}}}


def two_cpu_cluster(*extra):
    """n1: 2 CPUs, nothing running."""
    return cluster_of(*CLASSES, node("n1", cpu="2"), *extra)


def test_pending_replicas_after_the_first_are_answered_by_its_cycle(monkeypatch) -> None:
    """Six replicas of 1 CPU on a 2-CPU node with nothing to preempt: two bind, the third
    fails (Insufficient cpu, no lower-priority pod), and nothing changes after it, so the
    other three get the same FitError without a cycle of their own: one cycle for the
    four pending pods."""
    cycles = []
    real = place_module.decide
    monkeypatch.setattr(place_module, "decide",
                        lambda sched, p, *a: cycles.append(p.key) or real(sched, p, *a))
    result = what_if(two_cpu_cluster(), docs_of(deployment("web", 6, "1")), now=1e9)
    assert [p.result for p in result.placements] == ["scheduled"] * 2 + ["unschedulable"] * 4
    assert len(cycles) == 3  # two binds, one failure
    first = result.placements[2]
    message = ("0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, "
               "preemption: 0/1 nodes are available: 1 No preemption victims found for "
               "incoming pod.")
    for p in result.placements[2:]:
        assert p.message == message
        assert p.decision is not None and p.decision.pod == p.pod.key
    assert first.answered_by is None
    assert {p.answered_by for p in result.placements[3:]} == {first.pod.key}


def test_replicas_answered_once_match_a_cycle_each() -> None:
    """The JSON of every pod is what its own cycle gives (answering the pending
    replicas once is exact): compared with placing each replica as its own workload,
    which makes every pod run its own cycle."""
    docs = docs_of(deployment("web", 5, "1"))
    once = what_if(two_cpu_cluster(), docs, now=1e9, seed=1)
    cluster = two_cpu_cluster()
    pods = [p.pod for p in once.placements]
    copies = [fresh(p) for p in pods]
    each = place_module.place(cluster, [(f"w{i}", [p], False) for i, p in enumerate(copies)],
                              now=1e9)
    strip = lambda j: {k: v for k, v in j.items() if k != "workload"}  # noqa: E731
    assert [strip(p.to_json()) for p in once.placements] == \
        [strip(p.to_json()) for p in each.placements]
    assert all(p.answered_by is None for p in each.placements)


def test_only_replicas_of_the_same_workload_reuse_an_answer() -> None:
    """web's second replica fails and its third reuses that answer; small's pods (another
    workload, another template, lower priority: after web in the queue) get cycles of
    their own and bind."""
    docs = docs_of(deployment("web", 3, "2"), deployment("small", 2, "500m", pc="low"))
    result = what_if(cluster_of(*CLASSES, node("n1", cpu="3")), docs, now=1e9)
    got = [(p.pod.key.split("-")[0], p.result, p.answered_by is not None)
           for p in result.placements]
    assert got == [("shop/web", "scheduled", False), ("shop/web", "unschedulable", False),
                   ("shop/web", "unschedulable", True), ("shop/small", "scheduled", False),
                   ("shop/small", "scheduled", False)]


def write(tmp_path: Path, name: str, *objects: dict) -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(objects))
    return str(path)


def test_table_shows_identical_pending_replicas_as_one_row(tmp_path: Path, capsys) -> None:
    cluster = write(tmp_path, "c.yaml", *CLASSES, node("n1", cpu="2"))
    new = write(tmp_path, "new.yaml", deployment("web", 6, "1"))
    assert main(["schedule", cluster, "-f", new]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if "Deployment/shop/web" in line]
    assert len(rows) == 3
    assert "×4" in rows[2] and "unschedulable" in rows[2]
    assert "6 pod(s): 2 scheduled" in out and "4 pending" in out
    assert main(["schedule", cluster, "-f", new, "-o", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["pods"]) == 6  # JSON keeps one entry per pod
    assert [p["result"] for p in data["pods"]].count("unschedulable") == 4


@pytest.mark.parametrize("command", ["schedule", "advise"])
def test_a_workload_above_max_pods_is_refused_before_any_work(tmp_path: Path, capsys,
                                                              command: str) -> None:
    """The refusal names the workload and its count, and comes before the cluster is
    read (a missing cluster file would be the error otherwise)."""
    new = write(tmp_path, "new.yaml", deployment("web", 6, "1"))
    missing = str(tmp_path / "no-such-cluster.yaml")
    assert main([command, missing, "-f", new, "--max-pods", "5"]) == 2
    err = capsys.readouterr().err
    assert "Deployment shop/web: asks for 6 pods, more than --max-pods 5" in err
    cluster = write(tmp_path, "c.yaml", *CLASSES, node("n1", cpu="8"))
    assert main([command, cluster, "-f", new, "--max-pods", "6", "-o", "json"]) == 0
    capsys.readouterr()


def test_the_default_limit_is_100000_pods(tmp_path: Path, capsys) -> None:
    new = write(tmp_path, "new.yaml", deployment("web", 100_001, "1"))
    assert main(["schedule", str(tmp_path / "none.yaml"), "-f", new]) == 2
    assert "asks for 100,001 pods, more than --max-pods 100,000" in capsys.readouterr().err


def test_a_node_given_with_f_is_named_with_what_to_do(tmp_path: Path, capsys) -> None:
    """A Node among the -f files is not part of the cluster: the warning says so and
    where it belongs, instead of calling Node a kind kubepreempt does not use."""
    cluster = write(tmp_path, "c.yaml", *CLASSES, node("n1", cpu="2"))
    new = write(tmp_path, "new.yaml", deployment("web", 1, "1"), node("n2", cpu="8"),
                {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}})
    assert main(["schedule", cluster, "-f", new, "-o", "json"]) == 0
    err = capsys.readouterr().err
    assert "does not use here: 1 ConfigMap" in err
    assert "1 Node" not in err
    assert "Node n2 is not added to the cluster" in err
    assert "give it among the cluster inputs" in err and "--node-like" in err


def test_progress_hook_sees_every_decision() -> None:
    """The hook a command sets (stderr progress) hears of each pod decided, with the
    number created so far."""
    calls: list[tuple[int, int]] = []
    token = place_module.PROGRESS.set(lambda done, queued: calls.append((done, queued)))
    try:
        what_if(two_cpu_cluster(), docs_of(deployment("web", 4, "1")), now=1e9)
    finally:
        place_module.PROGRESS.reset(token)
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_progress_only_for_people(monkeypatch) -> None:
    """Progress is reported for a terminal's table output, never with -o json/yaml."""
    import sys

    from kubepreempt.commands.schedule import placing

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    for output in ("json", "yaml"):
        with placing(output):
            assert place_module.PROGRESS.get() is None
    with placing("table"):
        assert place_module.PROGRESS.get() is not None
    assert place_module.PROGRESS.get() is None
