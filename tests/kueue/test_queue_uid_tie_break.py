"""A ClusterQueue's heap breaks ties by Workload UID (Kueue 0.19+), not by name.

Upstream ``baseCompareFunc`` (pkg/cache/queue/cluster_queue.go, #9101 "Fix
non-deterministic workload ordering in ClusterQueue.Snapshot", in release-0.19 and main
ff69552e): higher effective priority first, then the older queue-order timestamp, then
``cmp.Compare(a.Obj.UID, b.Obj.UID)``. Kueue v0.7's ``queueOrderingFunc`` ended at the
timestamp (``!tB.Before(tA)``), leaving ties to the heap; kubepreempt orders those by
namespace/name.
"""

from __future__ import annotations

from pathlib import Path

from builders.kueue import BASE, CURRENT, inputs, popped_in_order, wl

import kubepreempt.sim.kueue_actor as kueue_actor
from kubepreempt.kueue.objects import Workload
from kubepreempt.kueue.queue_manager import QueueManager
from kubepreempt.manifests import load_documents
from kubepreempt.sim import build_scenario, simulate

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sim" / "kueue-reclaim.yaml"


def _popped(uid_tie_break: bool) -> list[str]:
    """Three workloads of one ClusterQueue, equal priority and creation time, whose UIDs
    sort the other way round from their names; popped one head at a time."""
    docs = [wl("a", created=BASE, uid="ccc"), wl("b", created=BASE, uid="bbb"),
            wl("c", created=BASE, uid="aaa")]
    return popped_in_order(docs, uid_tie_break=uid_tie_break)


def test_current_kueue_pops_equal_workloads_by_uid() -> None:
    assert _popped(True) == ["c", "b", "a"]


def test_v07_keeps_the_name_order() -> None:
    assert _popped(False) == ["a", "b", "c"]


def test_a_workload_without_uid_ties_by_its_namespace_and_name() -> None:
    """A Workload read without ``metadata.uid`` (the simulator gives it its key as UID)."""
    docs = [wl("x", created=BASE), wl("y", created=BASE)]
    ws = {w.name: w for w in inputs(docs, CURRENT).workloads.values()}
    for w in ws.values():
        w.uid = ""
    qm: QueueManager[Workload] = QueueManager({"q": "BestEffortFIFO"}, lambda q: q, True,
                                              True)
    for name in ("y", "x"):
        qm.push("q", ws[name], ws[name])
    assert [w.name for w in qm.heads(lambda _: True)] == ["x"]


def test_the_simulator_takes_the_switch_from_the_release(monkeypatch) -> None:
    seen: list[bool] = []
    init = QueueManager.__init__

    def spy(self, strategies, root_of, ace, uid_tie_break=False):
        seen.append(uid_tie_break)
        init(self, strategies, root_of, ace, uid_tie_break)

    monkeypatch.setattr(kueue_actor.QueueManager, "__init__", spy)
    for version in ("current", "v0.7"):
        simulate(build_scenario(load_documents([str(EXAMPLE)])), kueue_version=version,
                 until=1.0)
    assert seen == [True, False]
