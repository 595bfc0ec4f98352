"""Invariants over random cohorts (hypothesis): victims come only from queues a policy
allows, the workload fits once they leave, and no victim could be spared.

The quota arithmetic here is an independent oracle written from the seed's rules (a
queue may use its nominal quota, plus up to its borrowingLimit when borrowing, and the
cohort's usage may not exceed the sum of its members' nominal quotas); it does not call
the engine's accounting. One flavor, one resource (whole cpus), one cohort.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from builders.kueue import NOW, config, cq, flavor, inputs, wl
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from profiles import examples

from kubepreempt.kueue.admission import decide

POLICIES = st.sampled_from(["Never", "LowerPriority", "LowerOrNewerEqualPriority"])
RECLAIM = st.sampled_from(["Never", "LowerPriority", "Any"])


@dataclass
class Queue:
    nominal: int
    borrowing_limit: int | None
    within: str
    reclaim: str


@dataclass(frozen=True)
class Admitted:
    name: str
    queue: str
    cpu: int
    priority: int
    created: float


@dataclass
class Model:
    """The scenario in plain numbers, for the oracle."""

    queues: dict[str, Queue] = field(default_factory=dict)
    admitted: list[Admitted] = field(default_factory=list)

    def usage(self, without: set[str] = frozenset()) -> dict[str, int]:  # type: ignore[assignment]
        out = dict.fromkeys(self.queues, 0)
        for a in self.admitted:
            if a.name not in without:
                out[a.queue] += a.cpu
        return out

    def fits(self, usage: dict[str, int], queue: str, cpu: int, borrowing: bool) -> bool:
        """The seed's quota rule for ``cpu`` more in ``queue`` given ``usage``."""
        q = self.queues[queue]
        own = usage[queue] + cpu
        if not borrowing and own > q.nominal:
            return False
        if q.borrowing_limit is not None and own > q.nominal + q.borrowing_limit:
            return False
        return sum(usage.values()) + cpu <= sum(x.nominal for x in self.queues.values())


@st.composite
def scenarios(draw: Any) -> tuple[list[dict[str, Any]], Model, str, int, int, float]:
    fair = draw(st.booleans())
    n = draw(st.integers(2, 3))
    model = Model()
    objs: list[dict[str, Any]] = [flavor("default"), config(fair=fair)]
    for i in range(n):
        reclaim = draw(RECLAIM)
        bwc = draw(st.sampled_from([None, "LowerPriority"])) if reclaim != "Never" else None
        limit = draw(st.sampled_from([None, 1, 3]))
        nominal = draw(st.integers(0, 6))
        within = draw(POLICIES)
        model.queues[f"q{i}"] = Queue(nominal, limit, within, reclaim)
        objs.append(cq(f"q{i}", [("default", {"cpu": (str(nominal),
                                                       None if limit is None else str(limit))})],
                       cohort="c", within=within, reclaim=reclaim, borrow_within=bwc,
                       weight=draw(st.sampled_from([None, "1", "2", "500m"]))))
    for j in range(draw(st.integers(0, 8))):
        q = f"q{draw(st.integers(0, n - 1))}"
        cpu = draw(st.integers(1, 4))
        prio = draw(st.integers(-2, 2))
        created = float(draw(st.integers(0, 5)))
        # Admit only what Kueue's quota rules would have admitted.
        if model.fits(model.usage(), q, cpu, True):
            model.admitted.append(Admitted(f"w{j}", q, cpu, prio, created))
            objs.append(wl(f"w{j}", {"cpu": str(cpu)}, prio, admitted=q, created=created))
    target = f"q{draw(st.integers(0, n - 1))}"
    cpu = draw(st.integers(1, 6))
    prio = draw(st.integers(-2, 2))
    created = float(draw(st.integers(0, 5)))
    objs.append(wl("in", {"cpu": str(cpu)}, prio, queue=target, created=created))
    return objs, model, target, cpu, prio, created


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_preemption_invariants(case: tuple[list[dict[str, Any]], Model, str, int, int,
                                          float]) -> None:
    objs, model, target, cpu, prio, created = case
    d = decide(inputs(objs), "default/in", NOW)
    assert d.result in ("admit", "preempt", "pending")
    usage = model.usage()
    # One flavor: it is assigned (Fit) exactly when the quota rule allows the workload.
    assert (d.result == "admit") == model.fits(usage, target, cpu, True)
    event(d.result)
    if d.result == "admit":
        return
    if d.result != "preempt":
        assert d.victims == []
        return
    by_name = {a.name: a for a in model.admitted}
    own = model.queues[target]
    victims = {by_name[v.split("/")[1]] for v in d.victims}
    for v in victims:
        if v.queue == target:
            assert own.within != "Never"
            assert v.priority < prio or (v.priority == prio
                                         and own.within == "LowerOrNewerEqualPriority"
                                         and created < v.created)
        else:
            assert own.reclaim != "Never"
            assert usage[v.queue] > model.queues[v.queue].nominal  # it was borrowing
            if own.reclaim == "LowerPriority":
                assert v.priority < prio
    names = {v.name for v in victims}
    assert model.fits(model.usage(names), target, cpu, True), "fits once the victims leave"
    for v in victims:  # ... and every victim is needed
        assert not model.fits(model.usage(names - {v.name}), target, cpu, False), \
            f"{v.name} could be spared"
