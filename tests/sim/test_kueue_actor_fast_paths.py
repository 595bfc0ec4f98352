"""The Kueue actor's remembered figures give the plain computation's answers.

Each cohort's utilisation sample uses the member list and summed nominal quota the actor
remembers; here every sample of a small, preempting run of Kueue's scheduler benchmark
is checked against the figure recomputed from the snapshot's tree at that moment.
"""

from __future__ import annotations

import pytest

from kubepreempt.sim import kueue_actor
from kubepreempt.sim.kueue_bench import KueueBenchConfig, WorkloadClass, run

SMALL = KueueBenchConfig(
    "small", cohorts=2, queues=3, nominal=4, borrowing_limit=4,
    classes=(WorkloadClass("small", 12, 100, 300, 50, 1),
             WorkloadClass("large", 3, 400, 500, 200, 4)),
    max_wall_ms=10_000, min_usage_pct=0.0, max_avg_admission_ms={"small": 0, "large": 0},
    upstream_wall_ms=0.0)


def _plain_utilisation(co) -> float:  # type: ignore[no-untyped-def]
    total: dict[str, int] = {}
    used: dict[str, int] = {}
    for st in co.subtree_cluster_queues():
        for (_, res), q in st.quotas.items():
            total[res] = total.get(res, 0) + q.nominal
        for (_, res), v in st.usage.items():
            used[res] = used.get(res, 0) + v
    return max((used.get(r, 0) / t for r, t in total.items() if t), default=0.0)


@pytest.mark.parametrize("version", ["current", "v0.7"])
def test_cohort_utilisation_samples_match_plain_recomputation(monkeypatch, version) -> None:
    checked = []
    orig = kueue_actor.KueueActor.sample

    def sample(self, names=None):  # type: ignore[no-untyped-def]
        orig(self, names)
        for name, co in self.snap.cohorts.items():
            points = self.cohort_series.get(name)
            if points and points[-1][0] == self.world.now:
                assert points[-1][1] == _plain_utilisation(co)
                checked.append(points[-1][1])

    monkeypatch.setattr(kueue_actor.KueueActor, "sample", sample)
    result = run(SMALL, version)
    assert result["workloadClasses"]["small"]["evictions"] > 0  # usage went up and down
    assert len(set(checked)) > 3
