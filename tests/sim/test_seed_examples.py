"""Examples 1-4 and the starvation problem of the preemption design doc, as exact timelines.

Units of resource are cpu cores. Pod A has a 60 s grace period, B 30 s (as the text says),
and victims use their whole grace period. Where current upstream differs from the 2017
text we follow upstream and say so.
"""

from __future__ import annotations

from builders.sim import node, pod, timeline
from builders.sim import run as _run


def run(*args, **kw):
    """The seed's examples are told with the design document's (classic) queue."""
    kw.setdefault("queue", "classic")
    return _run(*args, **kw)


KEY = ("preempted", "nominated", "nomination-cleared", "bound", "terminated", "completed")

EXAMPLE_1 = (node("node-1", 10)
             + pod("a", 5, 100, "node-1", grace=60) + pod("b", 5, 100, "node-1", grace=30)
             + pod("c", 10, 1000) + pod("d", 2, 50))


def test_example_1_preemptor_waits_for_both_victims() -> None:
    r = run(EXAMPLE_1)
    assert timeline(r, *KEY) == [
        (0.0, "preempted", "a", "node-1"),
        (0.0, "preempted", "b", "node-1"),
        (0.0, "nominated", "c", "node-1"),
        (30.0, "terminated", "b", "node-1"),
        (60.0, "terminated", "a", "node-1"),
        (60.0, "bound", "c", "node-1"),
    ]
    # C is tried at 0 and 30 (no second preemption: A is still terminating) and binds at 60;
    # D is tried at 0, 30 and 60 and never fits: C's nomination counts against it.
    assert timeline(r, "unschedulable") == [
        (0.0, "unschedulable", "d", None),
        (30.0, "unschedulable", "c", "node-1"),
        (30.0, "unschedulable", "d", None),
        (60.0, "unschedulable", "d", None),
    ]
    assert "not eligible due to a terminating pod" in [
        e.detail for e in r.events if e.pod == "default/c" and e.type == "unschedulable"][0]
    pods = r.to_json()["pods"]
    assert pods["default/c"] == {**pods["default/c"], "phase": "Running", "node": "node-1",
                                 "boundAt": 60.0, "nominatedNode": None}
    assert pods["default/d"]["phase"] == "Pending" and pods["default/d"]["node"] is None
    assert pods["default/a"]["preemptedAt"] == 0.0 and pods["default/a"]["phase"] == "Failed"


def test_example_2_preemptor_binds_elsewhere_and_d_takes_node_1() -> None:
    # E (priority 2000, 10 units) finishes on node-2 at 10 s.
    r = run(EXAMPLE_1 + node("node-2", 10) + pod("e", 10, 2000, "node-2", duration="10s"))
    # Upstream tries the nominated node (node-1) first; it fails, so all nodes are
    # filtered and C lands on node-2, as the document says ("ignoring its nominated node").
    assert timeline(r, *KEY) == [
        (0.0, "preempted", "a", "node-1"),
        (0.0, "preempted", "b", "node-1"),
        (0.0, "nominated", "c", "node-1"),
        (10.0, "completed", "e", "node-2"),
        (10.0, "bound", "c", "node-2"),
        (30.0, "terminated", "b", "node-1"),
        (30.0, "bound", "d", "node-1"),
        (60.0, "terminated", "a", "node-1"),
    ]
    assert r.records["default/d"].nominated_node == ""  # D was never nominated
    assert timeline(r, "unschedulable") == [(0.0, "unschedulable", "d", None),
                                            (10.0, "unschedulable", "d", None)]


def test_example_3_lower_priority_pod_binds_on_free_space_meanwhile() -> None:
    r = run(EXAMPLE_1 + node("node-2", 10) + pod("e", 8, 2000, "node-2"))
    assert timeline(r, *KEY) == [
        (0.0, "preempted", "a", "node-1"),
        (0.0, "preempted", "b", "node-1"),
        (0.0, "nominated", "c", "node-1"),
        (0.0, "bound", "d", "node-2"),  # while A and B terminate and C is not bound yet
        (30.0, "terminated", "b", "node-1"),
        (60.0, "terminated", "a", "node-1"),
        (60.0, "bound", "c", "node-1"),
    ]


def test_example_4_higher_priority_nominee_clears_lower_nomination() -> None:
    # F (priority 2000, 10 units) is created at 10 s, while A and B terminate.
    r = run(EXAMPLE_1 + pod("f", 10, 2000, arrival="10s"))
    assert timeline(r, *KEY) == [
        (0.0, "preempted", "a", "node-1"),
        (0.0, "preempted", "b", "node-1"),
        (0.0, "nominated", "c", "node-1"),
        # F's victims would be A and B, already terminating: not deleted twice. Upstream
        # clears every lower-priority nomination on the chosen node.
        (10.0, "nomination-cleared", "c", "node-1"),
        (10.0, "nominated", "f", "node-1"),
        (30.0, "terminated", "b", "node-1"),
        (60.0, "terminated", "a", "node-1"),
        (60.0, "bound", "f", "node-1"),
    ]
    # C is retried at once and cannot fit (F's nomination); at 30 s F, C, D are retried,
    # F first; at 60 s F binds and C, D stay pending.
    assert timeline(r, "unschedulable") == [
        (0.0, "unschedulable", "d", None),
        (10.0, "unschedulable", "c", None),
        (30.0, "unschedulable", "f", "node-1"),
        (30.0, "unschedulable", "c", None),
        (30.0, "unschedulable", "d", None),
        (60.0, "unschedulable", "c", None),
        (60.0, "unschedulable", "d", None),
    ]
    phases = {k.split("/")[1]: v["phase"] for k, v in r.to_json()["pods"].items()}
    assert phases == {"a": "Failed", "b": "Failed", "c": "Pending", "d": "Pending",
                      "f": "Running"}


# Starvation: victims L1 (30 s grace) and L2 (60 s) make room for P (priority 1000, the
# whole node); a stream of small pods (half a node each, priority 0) arrives every second.
STARVATION = (node("node-1", 10)
              + pod("l1", 5, 0, "node-1", grace=30) + pod("l2", 5, 0, "node-1", grace=60)
              + pod("p", 10, 1000) + pod("s", 5, 0, arrival="1s", replicas="300",
                                          interval="1s"))


def test_starvation_with_fifo_queue() -> None:
    r = run(STARVATION, queue="fifo", until=200)
    # Each time a victim exits, the small pod at the head of the queue takes the space;
    # P then preempts that pod, and the next small pod takes its space, and so on.
    assert timeline(r, "bound", "preempted", "terminated") == [
        (0.0, "preempted", "l1", "node-1"),
        (0.0, "preempted", "l2", "node-1"),
        (30.0, "terminated", "l1", "node-1"),
        (30.0, "bound", "s-0", "node-1"),
        (60.0, "terminated", "l2", "node-1"),
        (60.0, "preempted", "s-0", "node-1"),
        (60.0, "bound", "s-1", "node-1"),
        (90.0, "terminated", "s-0", "node-1"),
        (90.0, "preempted", "s-1", "node-1"),
        (90.0, "bound", "s-2", "node-1"),
        (120.0, "terminated", "s-1", "node-1"),
        (120.0, "preempted", "s-2", "node-1"),
        (120.0, "bound", "s-3", "node-1"),
        (150.0, "terminated", "s-2", "node-1"),
        (150.0, "preempted", "s-3", "node-1"),
        (150.0, "bound", "s-4", "node-1"),
        (180.0, "terminated", "s-3", "node-1"),
        (180.0, "preempted", "s-4", "node-1"),
        (180.0, "bound", "s-5", "node-1"),
    ]
    assert r.records["default/p"].phase == "Pending"
    assert not timeline(r, "nominated")


def test_starvation_solved_by_priority_queue_and_nomination() -> None:
    r = run(STARVATION, until=200)
    assert timeline(r, "bound", "preempted", "terminated", "nominated") == [
        (0.0, "preempted", "l1", "node-1"),
        (0.0, "preempted", "l2", "node-1"),
        (0.0, "nominated", "p", "node-1"),
        (30.0, "terminated", "l1", "node-1"),
        (60.0, "terminated", "l2", "node-1"),
        (60.0, "bound", "p", "node-1"),
    ]
    assert r.records["default/s-0"].phase == "Pending"
    assert r.metrics["classes"]["(priority 1000)"]["meanPending"] == 60.0
