"""The Cluster Autoscaler in the simulator: hand-worked timelines and bad input."""

from __future__ import annotations

import textwrap

import pytest
from builders.autoscaler import SCALE_DOWN, bare, events, group_node, run
from builders.controllers import CLASSES, deployment

from kubepreempt.api.errors import InputError, Source
from kubepreempt.manifests import Documents, parse_text
from kubepreempt.manifests import _flatten as flatten
from kubepreempt.sim import build_scenario, simulate
from kubepreempt.sim.autoscaler import AutoscalerOptions


def test_pod_waiting_for_preemption_causes_no_scale_up() -> None:
    """Seed 000, "Interactions with Cluster Autoscaler": hi preempts lo at 5 and is
    nominated to n1; while lo exits (30 s) hi is pending but nominated, so no scan adds
    a node; hi binds at 35."""
    r = run(group_node("n1") + bare("lo", "2", 100, node="n1", exit_after="30s")
            + bare("hi", "2", 1000, arrival="5"))
    assert events(r, "scale-up", "nominated", "bound") == [
        (5.0, "nominated", "hi", "n1"), (35.0, "bound", "hi", "n1")]
    assert r.metrics["autoscaler"]["nodesAdded"] == 0


@pytest.mark.parametrize(("priority", "scaled"), [(-10, True), (-11, False)])
def test_pod_below_the_expendable_cutoff_causes_no_scale_up(priority: int,
                                                           scaled: bool) -> None:
    """n1 is full. p (1 CPU) cannot preempt. At priority -10 (not below the cutoff -10) the
    scan at 0 orders one node, Ready at 60, and p binds there; at -11 it is expendable:
    no scale-up, p stays pending."""
    r = run(group_node("n1") + bare("full", "2", 0, node="n1") + bare("p", "1", priority))
    if scaled:
        assert events(r, "scale-up", "node-added", "bound") == [
            (0.0, "scale-up", "", None), (60.0, "node-added", "", "pool-1"),
            (60.0, "bound", "p", "pool-1")]
        a = r.metrics["autoscaler"]
        assert (a["nodesAdded"], a["peakNodes"]) == (1, 2)
        assert a["nodeCount"][:2] == [[0.0, 1], [60.0, 2]]
    else:
        assert events(r, "scale-up", "node-added", "bound") == []
        assert r.records["default/p"].phase == "Pending"


def test_binpacking_orders_enough_nodes_for_all_pods_and_respects_max() -> None:
    """Five 1-CPU pods pending, 2-CPU template: binpacking says 3 nodes; max 3 with one
    node already there allows 2; four pods bind at 60, one stays pending."""
    pods = "".join(bare(f"p{i}", "1", 0) for i in range(5))
    r = run(group_node("n1") + bare("full", "2", 0, node="n1") + pods)
    ups = [e for e in r.events if e.type == "scale-up"]
    assert [(e.time, e.detail) for e in ups] == [(0.0, "group pool: +2 node(s) for 4 pod(s)")]
    assert sum(1 for rec in r.records.values() if rec.phase == "Pending") == 1


def test_scale_down_of_an_unneeded_node_after_ten_minutes() -> None:
    """web (1 replica, 0.5 CPU) lands on n2 (least allocated). n2 is below 50 % and web
    fits on n1 (0.5 free): unneeded from 0, removed at the scan at 600: cordoned, web
    evicted (exits after 5 s) — its ReplicaSet's replacement binds on n1 at 600 — and n2
    deleted at 605. The loop looks once more at 610 and the run ends: n1 counts 610
    node-seconds, n2 605."""
    web = deployment("web", 1, "mid").replace('cpu: "1"', 'cpu: "500m"')
    r = run(SCALE_DOWN + web)
    got = [(t, e, p, n) for t, e, p, n in
           events(r, "scale-down", "evicted", "bound", "node-removed")]
    assert got == [(0.0, "bound", "web", "n2"), (600.0, "evicted", "web", "n2"),
                   (600.0, "scale-down", "", "n2"), (600.0, "bound", "web", "n1"),
                   (605.0, "node-removed", "", "n2")]
    a = r.metrics["autoscaler"]
    assert (a["nodesRemoved"], a["nodeSeconds"]["pool"]) == (1, 1215.0)


def test_scale_down_blocked_by_a_pod_disruption_budget() -> None:
    """The same, with a PDB minAvailable 1 over web: evicting web would leave 0 < 1
    available, so n2 never becomes unneeded and stays."""
    web = deployment("web", 1, "mid").replace('cpu: "1"', 'cpu: "500m"')
    pdb = """
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: default}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: web}}
"""
    r = run(SCALE_DOWN + web + pdb)
    assert events(r, "scale-down", "node-removed") == []
    assert r.metrics["autoscaler"]["nodesRemoved"] == 0


@pytest.mark.parametrize(("blocker", "removed"), [
    ("", 1),
    ("\n    cluster-autoscaler.kubernetes.io/scale-down-disabled: \"true\"", 0),
])
def test_scale_down_disabled_node_is_kept(blocker: str, removed: int) -> None:
    r = run(group_node("n1") + group_node("n2", extra_ann=blocker)
            + bare("big", "1500m", 0, node="n1"))
    assert r.metrics["autoscaler"]["nodesRemoved"] == removed


def test_bare_pod_blocks_scale_down_unless_safe_to_evict() -> None:
    base = group_node("n1") + group_node("n2") + bare("big", "1500m", 0, node="n1")
    small = bare("small", "500m", 0, node="n2")
    assert run(base + small).metrics["autoscaler"]["nodesRemoved"] == 0
    safe = small.replace("annotations: {}",
                         'annotations: {cluster-autoscaler.kubernetes.io/safe-to-evict: "true"}')
    assert run(base + safe).metrics["autoscaler"]["nodesRemoved"] == 1


@pytest.mark.parametrize(("text", "message"), [
    (group_node("n1", lo="3", hi="1"), "min 3 is above max 1"),
    (group_node("n1", hi="lots"), "'lots' is not an integer"),
    (group_node("n1", hi="1" + "0" * 30), "out of range"),
    (group_node("n1") + group_node("n2", cpu=4), "differs in shape"),
    (group_node("n1") + group_node("n2", hi="5"), "min/max differ"),
    (group_node("n1").replace('kubepreempt.io/node-group-max: "3"', ""),
     "node-group-max is required"),
])
def test_malformed_node_groups_are_input_errors(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message) as err:
        run(text)
    assert "Node" in str(err.value) and "\n" not in str(err.value)


def test_bad_expander_is_an_input_error() -> None:
    with pytest.raises(InputError, match="--expander"):
        run(group_node("n1"), expander="cheapest")


def test_cli_autoscale_json_report_and_bad_input(tmp_path, capsys) -> None:
    import json

    from kubepreempt.cli import main
    scenario = tmp_path / "s.yaml"
    scenario.write_text(textwrap.dedent(CLASSES) + group_node("n1")
                        + bare("full", "2", 0, node="n1") + bare("p", "1", 0))
    report = tmp_path / "r.html"
    assert main(["simulate", str(scenario), "--autoscale", "--provision-time", "30s",
                 "-o", "json", "--report", str(report)]) == 0
    out = json.loads(capsys.readouterr().out)
    a = out["metrics"]["autoscaler"]
    assert (a["nodesAdded"], a["nodeCount"][:2]) == (1, [[0.0, 1], [30.0, 2]])
    assert out["pods"]["default/p"]["boundAt"] == 30.0
    assert "Nodes (Cluster Autoscaler)" in report.read_text()
    bad = tmp_path / "bad.yaml"
    bad.write_text(group_node("n1", lo="4", hi="2"))
    assert main(["simulate", str(bad), "--autoscale"]) == 2
    err = capsys.readouterr().err.strip()
    assert "Node n1" in err and "min 4 is above max 2" in err and "\n" not in err


@pytest.mark.parametrize(("ns", "volume", "removed"), [
    ("default", "", 1),
    ("kube-system", "", 0),  # --skip-nodes-with-system-pods: no PDB covers it
    ("default", "\n      volumes: [{name: scratch, emptyDir: {}}]", 0),  # local storage
])
def test_system_and_local_storage_pods_block_scale_down(ns: str, volume: str,
                                                        removed: int) -> None:
    web = deployment("web", 1, "mid", ns=ns).replace('cpu: "1"', 'cpu: "500m"')
    web = web.replace("      containers:", volume.replace("\n      ", "\n      ", 1)
                      + "\n      containers:") if volume else web
    r = run(SCALE_DOWN + web)
    assert r.metrics["autoscaler"]["nodesRemoved"] == removed


@pytest.mark.parametrize(("expander", "group"), [
    ("least-waste", "small"), ("most-pods", "big"), ("priority", "big")])
def test_expanders_choose_between_groups(expander: str, group: str) -> None:
    """Pending: two 1-CPU pods and one 4-CPU pod; groups small (2 CPU, priority 10) and
    big (8 CPU, priority 20), each with one full node. small's option: 1 node for the two
    1-CPU pods (the 4-CPU pod fits no small node), wasting 0 of its cpu and all of its
    memory (1.0); big's: 1 node for all three, wasting 2/8 cpu + all memory (1.25).
    least-waste takes small, most-pods big (3 pods > 2), priority big (20 > 10)."""
    small = group_node("s1", cpu=2, group="small", hi="5",
                       extra_ann='\n    kubepreempt.io/node-group-priority: "10"')
    big = group_node("b1", cpu=8, group="big", hi="5",
                     extra_ann='\n    kubepreempt.io/node-group-priority: "20"')
    pods = (bare("fill-s", "2", 0, node="s1") + bare("fill-b", "8", 0, node="b1")
            + bare("p1", "1", 0) + bare("p2", "1", 0) + bare("p3", "4", 0))
    r = run(small + big + pods, expander=expander)
    first = next(e.detail for e in r.events if e.type == "scale-up")
    assert first.startswith(f"group {group}: +1 node(s)")


def test_default_expander_is_least_waste() -> None:
    """Upstream's ``--expander`` default is least-waste (config/flags/flags.go,
    ``expander.LeastWasteExpanderName``): with no expander given, the groups of
    test_expanders_choose_between_groups give small under every seed (random would not)."""
    small = group_node("s1", cpu=2, group="small", hi="5")
    big = group_node("b1", cpu=8, group="big", hi="5")
    pods = (bare("fill-s", "2", 0, node="s1") + bare("fill-b", "8", 0, node="b1")
            + bare("p1", "1", 0) + bare("p2", "1", 0) + bare("p3", "4", 0))
    docs = Documents()
    for i, doc in enumerate(parse_text(textwrap.dedent(CLASSES + small + big + pods), "t.yaml")):
        flatten(doc, Source("t.yaml", i), docs)
    for seed in range(8):
        r = simulate(build_scenario(docs, 0), seed=seed, autoscale=AutoscalerOptions())
        first = next(e.detail for e in r.events if e.type == "scale-up")
        assert first.startswith("group small: +1 node(s)"), (seed, first)
