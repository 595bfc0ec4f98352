"""Cluster Autoscaler: what fits a template node, the least-waste expander on templates
without cpu or memory, and which pending pods count, each expected answer worked out from
kubernetes/autoscaler cluster-autoscaler-release-1.37 (the function is named in each
test)."""

from __future__ import annotations

import pytest
from builders.autoscaler import bare, group_node, run
from builders.autoscaler_scale_up import pod, scale_ups, sized_node

from kubepreempt.api.errors import InputError


def node(name: str, group: str, allocatable: str, hi: int = 3, taints: str = "") -> str:
    """A Node of ``group`` (sizes 1..``hi``) with the given allocatable (YAML flow map
    body) and taints."""
    spec = f"\nspec:\n  taints: {taints}" if taints else ""
    return f"""
---
apiVersion: v1
kind: Node
metadata:
  name: {name}
  labels: {{kubernetes.io/hostname: {name}}}
  annotations:
    kubepreempt.io/node-group: "{group}"
    kubepreempt.io/node-group-min: "1"
    kubepreempt.io/node-group-max: "{hi}"{spec}
status:
  allocatable: {{{allocatable}}}
"""


def ups(text: str, **options) -> list[tuple[float, str]]:
    return scale_ups(run(text, until=40, **options))


def test_the_pod_count_is_a_resource_of_the_template() -> None:
    """The estimator runs the scheduler's filters on the template (``NodeResourcesFit``:
    ``allowedPodNumber``): a template with 2 pods allocatable takes two 100m pods, the
    third needs a second node."""
    text = (node("a1", "a", 'cpu: "2", memory: 8Gi, pods: "2"')
            + pod("f1", "1", node="a1") + pod("f2", "1", node="a1")
            + "".join(pod(f"p{i}", "100m") for i in range(3)))
    assert ups(text) == [(0.0, "group a: +2 node(s) for 3 pod(s)")]


def test_a_template_without_pods_allocatable_takes_no_pod() -> None:
    """No ``pods`` in allocatable: ``allowedPodNumber`` 0, nothing fits, no scale-up."""
    text = (node("a1", "a", 'cpu: "2", memory: 8Gi')
            + pod("fa", "2", node="a1") + pod("p", "1"))
    assert ups(text) == []


def test_a_zero_request_of_a_resource_the_template_lacks() -> None:
    """p asks 1 CPU and 0 memory of a template with no memory at all: a zero request fits
    (``fitsRequest`` skips it) and takes nothing."""
    text = (node("a1", "a", 'cpu: "2", pods: "110"')
            + pod("fa", "2", node="a1") + pod("p", "1", "0") + pod("q", "1", "0"))
    assert ups(text) == [(0.0, "group a: +1 node(s) for 2 pod(s)")]


def test_an_extended_resource_the_template_lacks() -> None:
    """``fitsRequest``: a request of 1 ``example.com/gpu`` does not fit a template
    without it (0 allocatable); group g, whose template has one, gets the node."""
    gpu = pod("p", "1").replace('requests: {cpu: "1"', 'requests: {example.com/gpu: "1", cpu: "1"')
    plain = node("a1", "a", 'cpu: "2", memory: 8Gi, pods: "110"') + pod("fa", "2", node="a1")
    withgpu = (node("g1", "g", 'cpu: "2", memory: 8Gi, pods: "110", example.com/gpu: "1"')
               + pod("fg", "2", node="g1"))
    assert ups(plain + gpu) == []
    assert ups(plain + withgpu + gpu) == [(0.0, "group g: +1 node(s) for 1 pod(s)")]


TAINTED = (node("a1", "a", 'cpu: "2", memory: 8Gi, pods: "110"',
                taints="[{key: dedicated, value: batch, effect: NoSchedule}, "
                       "{key: spot, effect: PreferNoSchedule}]")
           + pod("fa", "2", node="a1").replace("spec:\n", "spec:\n  tolerations: "
                                               "[{operator: Exists}]\n", 1))


@pytest.mark.parametrize(("toleration", "scaled"), [
    ("[{key: dedicated, operator: Equal, value: batch, effect: NoSchedule}]", True),
    ("[{key: dedicated, operator: Equal, value: other, effect: NoSchedule}]", False),
    ("", False)])
def test_the_templates_taints(toleration: str, scaled: bool) -> None:
    """``TaintToleration`` on the template: its NoSchedule taint must be tolerated, its
    PreferNoSchedule one need not (Filter reads NoSchedule and NoExecute only)."""
    p = pod("p", "1")
    if toleration:
        p = p.replace("spec:\n", f"spec:\n  tolerations: {toleration}\n", 1)
    assert bool(ups(TAINTED + p)) is scaled


# ---- expander/waste: leastwaste.BestOptions ----

def full(name: str, group: str, allocatable: str, cpu: str = "2", memory: str = "0") -> str:
    """A node of ``group`` with a pod bound to it requesting ``cpu`` and ``memory``."""
    return node(name, group, allocatable) + pod(f"f{name}", cpu, memory, node=name)


def test_least_waste_keeps_a_first_option_without_memory() -> None:
    """Group a's template has no memory: its score is 0.5 + 0/0 = NaN, the first option
    (options by group name), so it is taken (``leastWastedOptions == nil``) and b (0.5 +
    0.75) cannot beat it (``< NaN`` is false)."""
    text = (full("a1", "a", 'cpu: "2", pods: "110"')
            + full("b1", "b", 'cpu: "2", memory: 4Gi, pods: "110"') + pod("p", "1", "0"))
    assert ups(text) == [(0.0, "group a: +1 node(s) for 1 pod(s)")]


def test_least_waste_passes_over_a_later_option_without_memory() -> None:
    """a (2 CPU, 4Gi) wastes 0.5 + 1.0 = 1.5; b's template has no memory and scores NaN,
    neither equal to 1.5 nor below it: a is taken (with 0 for b's memory term b would
    win at 0.5)."""
    text = (full("a1", "a", 'cpu: "2", memory: 4Gi, pods: "110"')
            + full("b1", "b", 'cpu: "2", pods: "110"') + pod("p", "1", "0"))
    assert ups(text) == [(0.0, "group a: +1 node(s) for 1 pod(s)")]


def test_least_waste_without_cpu() -> None:
    """The same for cpu: a's template has none (NaN, first, taken); p asks memory only."""
    text = (node("a1", "a", 'memory: 4Gi, pods: "110"') + pod("fa1", "0", "4Gi", node="a1")
            + full("b1", "b", 'cpu: "2", memory: 4Gi, pods: "110"')
            .replace('cpu: "2", memory: "0"}}', 'cpu: "2", memory: "4Gi"}}')
            + pod("p", "0", "1Gi"))
    assert ups(text) == [(0.0, "group a: +1 node(s) for 1 pod(s)")]


def test_least_waste_still_picks_the_least_waste() -> None:
    """Neither template lacks cpu or memory: b (0.5 + 0.75 = 1.25) beats a (0.5 + 0.875)."""
    text = (full("a1", "a", 'cpu: "2", memory: 8Gi, pods: "110"')
            + full("b1", "b", 'cpu: "2", memory: 4Gi, pods: "110"') + pod("p", "1", "1Gi"))
    assert ups(text) == [(0.0, "group b: +1 node(s) for 1 pod(s)")]


# ---- which pending pods count (the loop's unschedulable pods) ----

FULL = sized_node("a1", "a", "2", "8Gi") + pod("fa", "2", node="a1")


def test_a_gated_pod_before_others_does_not_stop_the_list() -> None:
    """A pod held by a scheduling gate was never tried (reason ``SchedulingGated``, not
    ``Unschedulable``): it causes no scale-up, and p after it still does."""
    gated = pod("g", "1").replace("spec:\n", "spec:\n  schedulingGates: [{name: wait}]\n", 1)
    assert ups(FULL + gated) == []
    assert ups(FULL + gated + pod("p", "1")) == [(0.0, "group a: +1 node(s) for 1 pod(s)")]


def test_an_expendable_pod_before_others_does_not_stop_the_list() -> None:
    """``FilterOutExpendablePods`` drops cheap (priority -20) and keeps p."""
    cheap = pod("cheap", "1").replace("priority: 0", "priority: -20")
    assert ups(FULL + cheap + pod("p", "1")) == [(0.0, "group a: +1 node(s) for 1 pod(s)")]


def test_a_nominated_pod_before_others_does_not_stop_the_list() -> None:
    """hi preempts lo at 5 and waits, nominated, for it to leave (30 s): it causes no
    scale-up, q (arriving at 6) does at the scan at 10."""
    text = (sized_node("a1", "a", "2", "8Gi") + bare("lo", "2", 100, node="a1", exit_after="30s")
            + bare("hi", "2", 1000, arrival="5") + bare("q", "1", 0, arrival="6"))
    assert ups(text) == [(10.0, "group a: +1 node(s) for 1 pod(s)")]


# ---- the loop's ticks ----

def test_a_sleeping_loop_wakes_at_the_next_scan_tick() -> None:
    """Nothing to do at 0, the loop sleeps; p arrives at 15 and is found at the scan at 20
    (scans every ``--scan-interval``), or at 15 with an interval of 5."""
    text = FULL + bare("p", "1", 0, arrival="15")
    assert ups(text) == [(20.0, "group a: +1 node(s) for 1 pod(s)")]
    assert ups(text, scan_interval=5) == [(15.0, "group a: +1 node(s) for 1 pod(s)")]


def test_the_scan_interval_must_be_positive() -> None:
    """A loop that never waits would hold the simulated time still: 0 is an input error
    (upstream's loop sleeps ``--scan-interval`` between iterations)."""
    with pytest.raises(InputError) as err:
        run(FULL, until=60, scan_interval=0)
    assert str(err.value) == "--scan-interval must be > 0, not 0"
    assert ups(FULL + bare("p", "1", 0, arrival="15"), scan_interval=0.5) == [
        (15.0, "group a: +1 node(s) for 1 pod(s)")]


def test_a_nominated_pod_holds_its_room_on_the_node() -> None:
    """``podsWaitingForLowerPriorityPreemption`` are put in the snapshot on their
    nominated node. hi (2 CPU) preempts lo (1 CPU, 30 s to exit) at 5 and is nominated to
    a1; q (1 CPU, arriving at 6) would fit beside lo alone, but not beside hi's
    reservation: the scan at 10 scales up for q."""
    text = (sized_node("a1", "a", "2", "8Gi") + bare("lo", "1", 100, node="a1", exit_after="30s")
            + bare("hi", "2", 1000, arrival="5") + pod("q", "1").replace(
                "name: q, namespace: default}", "name: q, namespace: default, annotations: "
                "{kubepreempt.io/arrival: \"6\"}}"))
    assert ups(text) == [(10.0, "group a: +1 node(s) for 1 pod(s)")]


def test_higher_priority_pods_claim_upcoming_room_first() -> None:
    """``filterOutSchedulable`` sorts the unschedulable pods by priority, highest first,
    and packs them in that order ("tries to pack the higher priority pods first"). big
    (1.5 CPU, 1Gi, only
    pool a) ordered a-1 at 0. At the scan at 10 hi (priority 1000, 1.5 CPU, 1Gi, any
    pool) takes a-1's room first, so big is what is left, and only group a can take it;
    had big claimed the room, hi would be left and least-waste would pick b (2Gi: 0.25 +
    0.5 against a's 0.25 + 0.875)."""
    def selecting(p: str, pool: str) -> str:
        return p.replace("spec:\n", f"spec:\n  nodeSelector: {{pool: {pool}}}\n", 1)
    text = (group_node("a1", 2, "a", memory="8Gi", labels=", pool: a") + pod("fa", "2", node="a1")
            + group_node("b1", 2, "b", memory="2Gi", labels=", pool: b") + pod("fb", "2", node="b1")
            + selecting(pod("big", "1500m", "1Gi"), "a")
            + pod("hi", "1500m", "1Gi").replace("priority: 0", "priority: 1000").replace(
                "name: hi, namespace: default}", "name: hi, namespace: default, annotations: "
                "{kubepreempt.io/arrival: \"5\"}}"))
    assert ups(text) == [(0.0, "group a: +1 node(s) for 1 pod(s)"),
                         (10.0, "group a: +1 node(s) for 1 pod(s)")]


def test_least_waste_compares_fractions_not_amounts() -> None:
    """p asks 1 CPU and 1Gi. a (10 CPU, 2Gi) wastes 0.9 + 0.5 = 1.4; b (1 CPU, 16Gi)
    wastes 0 + 0.9375: b, though a leaves far fewer bytes unused."""
    text = (full("a1", "a", 'cpu: "10", memory: 2Gi, pods: "110"', cpu="10")
            + full("b1", "b", 'cpu: "1", memory: 16Gi, pods: "110"', cpu="1")
            + pod("p", "1", "1Gi"))
    assert ups(text) == [(0.0, "group b: +1 node(s) for 1 pod(s)")]


@pytest.mark.parametrize(("request_", "a", "b"), [
    ("memory: 1Gi", ("2", "4Gi"), ("4", "4Gi")),
    ('cpu: "1"', ("2", "4Gi"), ("2", "8Gi"))])
def test_least_waste_counts_an_unrequested_resource_as_zero(
        request_: str, a: tuple[str, str], b: tuple[str, str]) -> None:
    """``resourcesForPods`` adds the pods' requests; a resource a pod does not request
    adds 0. p asks memory only (then cpu only): a and b waste the whole of that resource
    (1.0 each) and the same fraction of the other (0.75, then 0.5), an exact tie, which
    the random expander breaks: over ten seeds both are chosen."""
    p = pod("p", "1").replace('requests: {cpu: "1", memory: "0"}', f"requests: {{{request_}}}")
    assert request_ in p
    text = (full("a1", "a", f'cpu: "{a[0]}", memory: {a[1]}, pods: "110"', *a)
            + full("b1", "b", f'cpu: "{b[0]}", memory: {b[1]}, pods: "110"', *b) + p)
    chosen = {scale_ups(run(text, until=40, seed=seed))[0][1].split(":")[0]
              for seed in range(10)}
    assert chosen == {"group a", "group b"}


def test_only_a_tie_draws_from_the_seeded_generator() -> None:
    """``chainStrategy.BestOption`` returns a filter's only option without calling the
    random fallback, so only ties draw (upstream from an unseeded source; here from the
    ``--seed`` generator, one draw per tie). p1 (8 CPU, pool a) gets group a's node at 0,
    the only option; p2 (1 CPU) at 100 ties b and c (a wastes more). For every seed p2's
    choice is the one it gets without p1: the earlier scale-up drew nothing."""
    base = (group_node("a1", 8, "a", memory="4Gi", labels=", pool: a")
            + pod("fa", "8", node="a1")
            + group_node("b1", 2, "b", memory="4Gi") + pod("fb", "2", node="b1")
            + group_node("c1", 2, "c", memory="4Gi") + pod("fc", "2", node="c1")
            + pod("p2", "1").replace("name: p2, namespace: default}",
                                     'name: p2, namespace: default, annotations: '
                                     '{kubepreempt.io/arrival: "100"}}'))
    p1 = pod("p1", "8").replace("spec:\n", "spec:\n  nodeSelector: {pool: a}\n", 1)

    def choices(text: str) -> list[str]:
        return [scale_ups(run(text, until=130, seed=seed))[-1][1].split(":")[0]
                for seed in range(10)]
    alone = choices(base)
    assert set(alone) == {"group b", "group c"}
    assert choices(base + p1) == alone
