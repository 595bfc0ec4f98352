"""The simulator's sampled preemption: upstream's DryRunPreemption window starts at a
seeded random offset."""

from __future__ import annotations

from builders.sim import node, pod, run


def test_sampled_preemption_is_reproducible_with_a_seed() -> None:
    # 120 identical nodes, each full with a priority-0 pod: any node is a candidate; the
    # sampled window starts at a seeded random offset, so the seed decides the node.
    scen = "".join(node(f"n{i:03d}", 2) + pod(f"r{i:03d}", 2, 0, f"n{i:03d}")
                   for i in range(120)) + pod("p", 2, 100)

    def victim(seed: int, best: bool | None = None) -> str:
        r = run(scen, seed=seed, best_candidates=best, until=0)
        return [e.pod for e in r.events if e.type == "preempted"][0]

    assert victim(1) == victim(1)
    assert len({victim(s) for s in range(6)}) > 1
    # Globally best: every candidate ties, the first node wins whatever the seed.
    assert {victim(s, best=True) for s in range(3)} == {"default/r000"}
