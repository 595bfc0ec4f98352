"""Victim selection: upstream preemption_test.go tables, then hand-worked admission cases."""

from __future__ import annotations

import pytest
from kubelet_fixtures import make_node, make_pod, upstream_pods

from kubepreempt.kubelet.admission import (
    PreemptionError,
    Requirement,
    admit_pod,
    distance,
    get_pods_to_preempt,
    requirements_string,
    subtract,
)

MI = 1 << 20
P = upstream_pods()


def reqs(cpu: int = 0, memory: int = 0, pods: int = 0) -> tuple[Requirement, ...]:
    """Upstream ``getAdmissionRequirementList(cpu milli, memory Mi, pods)``."""
    out = []
    if cpu > 0:
        out.append(Requirement("cpu", cpu))
    if memory > 0:
        out.append(Requirement("memory", memory * MI))
    if pods > 0:
        out.append(Requirement("pods", pods))
    return tuple(out)


# (name, preemptor, input pods, requirements, expected victims or None for an error)
GET_PODS_TO_PREEMPT = [
    ("no requirements", "cluster-critical", [], reqs(), []),
    ("no pods", "cluster-critical", [], reqs(pods=1), None),
    ("equal pods and resources requirements", "cluster-critical", ["burstable"],
     reqs(100, 100, 1), ["burstable"]),
    ("higher requirements than pod requests", "cluster-critical", ["burstable"],
     reqs(200, 200, 2), None),
    ("choose between bestEffort and burstable", "cluster-critical",
     ["burstable", "bestEffort"], reqs(pods=1), ["bestEffort"]),
    ("choose between burstable and guaranteed", "cluster-critical",
     ["burstable", "guaranteed"], reqs(pods=1), ["burstable"]),
    ("choose lower request burstable if it meets requirements", "cluster-critical",
     ["bestEffort", "high-request-burstable", "burstable"], reqs(100, 100), ["burstable"]),
    ("choose higher request burstable if lower does not meet requirements",
     "cluster-critical", ["bestEffort", "burstable", "high-request-burstable"],
     reqs(150, 150), ["high-request-burstable"]),
    ("multiple pods required", "cluster-critical",
     ["bestEffort", "burstable", "high-request-burstable", "guaranteed",
      "high-request-guaranteed"], reqs(350, 350), ["burstable", "high-request-burstable"]),
    ("evict guaranteed when we have to, and dont evict the extra burstable",
     "cluster-critical",
     ["bestEffort", "burstable", "high-request-burstable", "guaranteed",
      "high-request-guaranteed"], reqs(0, 550), ["high-request-burstable",
                                                 "high-request-guaranteed"]),
    ("evict cluster critical pod for node critical pod", "node-critical",
     ["cluster-critical"], reqs(100), ["cluster-critical"]),
    ("can not evict node critical pod for cluster critical pod", "cluster-critical",
     ["node-critical"], reqs(100), None),
    # TestEvictPodsToFreeRequests
    ("critical pods cannot be preempted", "cluster-critical", ["cluster-critical"],
     reqs(pods=1), None),
    ("best effort pods are not preempted when attempting to free resources",
     "cluster-critical", ["bestEffort"], reqs(memory=1), None),
    ("multiple pods evicted", "cluster-critical",
     ["cluster-critical", "bestEffort", "burstable", "high-request-burstable", "guaranteed",
      "high-request-guaranteed"], reqs(0, 550), ["high-request-burstable",
                                                 "high-request-guaranteed"]),
]


@pytest.mark.parametrize(("name", "preemptor", "inputs", "requirements", "expected"),
                         GET_PODS_TO_PREEMPT, ids=[c[0] for c in GET_PODS_TO_PREEMPT])
def test_get_pods_to_preempt(name, preemptor, inputs, requirements, expected):
    pods = [P[n] for n in inputs]
    if expected is None:
        with pytest.raises(PreemptionError):
            get_pods_to_preempt(P[preemptor], pods, requirements)
        return
    victims = get_pods_to_preempt(P[preemptor], pods, requirements)
    assert sorted(v.name for v in victims) == sorted(expected)  # upstream: podListEqual


def test_get_pods_to_preempt_benchmark_shape():
    """BenchmarkGetPodsToPreempt: 110 tiny burstable pods, 110m cpu -> all 110 go."""
    pods = [P["tiny"]] * 110
    # Upstream benchmarks with a bestEffort preemptor: not critical, equal priority, so
    # nothing is preemptable and getPodsToPreempt errors.
    with pytest.raises(PreemptionError):
        get_pods_to_preempt(P["bestEffort"], pods, (Requirement("cpu", 110),))
    assert len(get_pods_to_preempt(P["cluster-critical"], pods,
                                   (Requirement("cpu", 110),))) == 110


@pytest.mark.parametrize(("requirements", "pod", "expected"), [
    (reqs(), "burstable", 0.0),                   # no requirements
    (reqs(100, 100, 1), "bestEffort", 2.0),       # no requests, some requirements
    (reqs(100, 100, 1), "burstable", 0.0),        # equal requests and requirements
    (reqs(50, 50), "burstable", 0.0),             # higher requests than requirements
])
def test_distance(requirements, pod, expected):
    assert distance(requirements, P[pod]) == expected


@pytest.mark.parametrize(("initial", "pod", "expected"), [
    (reqs(), "burstable", reqs()),
    (reqs(100, 100, 1), "bestEffort", reqs(100, 100)),
    (reqs(100, 100, 1), "burstable", reqs()),
    (reqs(50, 50), "burstable", reqs()),
    (reqs(200, 200, 1), "burstable", reqs(100, 100)),
])
def test_subtract(initial, pod, expected):
    assert set(subtract(initial, P[pod])) == set(expected)


def test_requirements_string():
    assert requirements_string(reqs(100, pods=1)) == "[(res: cpu, q: 100), (res: pods, q: 1), ]"


# ---- hand-worked admission cases -------------------------------------------------------
CRIT = {"kubernetes.io/config.source": "file"}


def qos_node_pods():
    """be (none), bu 100m/100Mi, bu-high 300m/300Mi, g 100m/100Mi, g-high 300m/300Mi."""
    small, big = {"cpu": "100m", "memory": "100Mi"}, {"cpu": "300m", "memory": "300Mi"}
    return [make_pod("be"), make_pod("bu", small), make_pod("bu-high", big),
            make_pod("g", small, small), make_pod("g-high", big, big)]


def test_qos_steps_guaranteed_needed():
    # Node memory 350Mi; pods use 800Mi; the static pod asks 100Mi -> shortfall 550Mi.
    # Guaranteed step: 550 - (0 + 100 + 300) = 150Mi still needed -> g-high (distance 0).
    # Burstable step: 550 - (0 + 300 [g-high]) = 250Mi -> bu-high (distance 0, bu: 0.36).
    # BestEffort step: 550 - (300 + 300) < 0 -> nothing.
    node = make_node(cpu="2", memory="350Mi")
    critical = make_pod("static", {"cpu": "100m", "memory": "100Mi"}, annotations=CRIT)
    res = admit_pod(critical, node, qos_node_pods())
    assert res.result == "evict"
    assert res.shortfall == (Requirement("memory", 550 * MI),)
    assert res.victim_keys == ["default/bu-high", "default/g-high"]
    steps = {s.qos: s for s in res.steps}
    assert [s.qos for s in res.steps] == ["Guaranteed", "Burstable", "BestEffort"]
    assert steps["Guaranteed"].needed == (Requirement("memory", 150 * MI),)
    assert steps["Guaranteed"].chosen == ["default/g-high"]
    assert steps["Burstable"].needed == (Requirement("memory", 250 * MI),)
    assert steps["Burstable"].chosen == ["default/bu-high"]
    assert steps["BestEffort"].needed == ()
    assert steps["BestEffort"].chosen == []


def test_pod_count_shortfall_takes_best_effort():
    # Node full by pod count (5/5): shortfall pods=1; the BestEffort pod alone covers it.
    node = make_node(pods=5)
    critical = make_pod("static", annotations=CRIT)
    res = admit_pod(critical, node, qos_node_pods())
    assert res.failures[0].reason == "OutOfpods"
    assert res.shortfall == (Requirement("pods", 1),)
    assert res.victim_keys == ["default/be"]


def test_distance_tie_goes_to_smaller_request():
    # Shortfall cpu 100m. a: 200m/300Mi and b: 150m/200Mi both meet it (distance 0):
    # the tie goes to the smaller memory request, b.
    node = make_node(cpu="400m")
    others = [make_pod("a", {"cpu": "200m", "memory": "300Mi"}),
              make_pod("b", {"cpu": "150m", "memory": "200Mi"})]
    critical = make_pod("static", {"cpu": "150m"}, annotations=CRIT)
    res = admit_pod(critical, node, others)
    assert res.shortfall == (Requirement("cpu", 100),)
    assert res.victim_keys == ["default/b"]


def test_distance_tie_equal_memory_goes_to_smaller_cpu():
    node = make_node(cpu="400m")
    others = [make_pod("a", {"cpu": "200m", "memory": "100Mi"}),
              make_pod("b", {"cpu": "150m", "memory": "100Mi"})]
    res = admit_pod(make_pod("s", {"cpu": "150m"}, annotations=CRIT), node, others)
    assert res.victim_keys == ["default/b"]


def test_non_resource_failure_rejects_critical_pod():
    # Out of cpu AND an untolerated NoExecute taint: a mirror pod (not static, so taints
    # apply) is rejected for the taint; no eviction.
    node = make_node(cpu="100m", taints=[{"key": "k", "effect": "NoExecute"}])
    mirror = make_pod("mirror", {"cpu": "200m"},
                      annotations={"kubernetes.io/config.mirror": "h"})
    res = admit_pod(mirror, node, [make_pod("x", {"cpu": "100m"})])
    assert res.result == "reject"
    assert res.victims == []
    assert res.reason == "TaintToleration"
    assert [f.reason for f in res.failures] == ["OutOfcpu", "TaintToleration"]


def test_static_pod_ignores_taints_and_node_selector_rejects():
    node = make_node(taints=[{"key": "k", "effect": "NoExecute"}], labels={"zone": "a"})
    static = make_pod("s", annotations=CRIT)
    assert admit_pod(static, node, []).result == "admit"
    picky = make_pod("s", annotations=CRIT, nodeSelector={"zone": "b"})
    res = admit_pod(picky, node, [])
    assert (res.result, res.reason) == ("reject", "NodeAffinity")


def test_host_port_conflict_is_not_a_resource_failure():
    ports = [{"name": "c", "ports": [{"containerPort": 80, "hostPort": 8080}]}]
    holder = make_pod("holder", containers=ports)
    static = make_pod("s", annotations=CRIT, containers=ports)
    res = admit_pod(static, make_node(), [holder])
    assert (res.result, res.reason, res.victims) == ("reject", "NodePorts", [])


def test_non_critical_preemptor_is_rejected_without_eviction():
    node = make_node(cpu="1")
    res = admit_pod(make_pod("p", {"cpu": "500m"}, priority=1_000_000_000), node,
                    [make_pod("low", {"cpu": "800m"}, priority=-5)])
    assert res.result == "reject"
    assert res.reason == "OutOfcpu"
    assert res.message == ("Node didn't have enough resource: cpu, requested: 500, used: 800, "
                           "capacity: 1000")
    assert res.victims == [] and res.steps == []


def test_shortfall_impossible_rejects():
    # Shortfall cpu 700m; the only preemptable pod frees 300m (the other is critical).
    node = make_node(cpu="1")
    others = [make_pod("small", {"cpu": "300m"}),
              make_pod("crit", {"cpu": "400m"}, priority=2_000_000_000)]
    res = admit_pod(make_pod("s", {"cpu": "1"}, annotations=CRIT), node, others)
    assert res.result == "reject"
    assert res.reason == "UnexpectedAdmissionError"
    assert res.shortfall == (Requirement("cpu", 700),)
    assert "(res: cpu, q: 400)" in res.message


def test_fits_admits():
    res = admit_pod(make_pod("p", {"cpu": "1"}), make_node(), [])
    assert (res.result, res.failures, res.victims) == ("admit", [], [])


def test_ephemeral_and_extended_resources():
    node = make_node(**{"ephemeral-storage": "1Gi", "example.com/gpu": "1"})
    others = [make_pod("gpu", {"example.com/gpu": "1", "ephemeral-storage": "800Mi"})]
    s = make_pod("s", {"example.com/gpu": "1", "ephemeral-storage": "300Mi",
                       "example.com/absent": "4"}, annotations=CRIT)
    res = admit_pod(s, node, others)
    # example.com/absent is not on the node: dropped, as removeMissingExtendedResources does
    assert [f.resource for f in res.failures] == ["ephemeral-storage", "example.com/gpu"]
    assert res.shortfall == (Requirement("ephemeral-storage", 76 * MI),
                             Requirement("example.com/gpu", 1))
    assert res.victim_keys == ["default/gpu"]


def test_os_label_mismatch_rejects_before_anything_else():
    node = make_node(cpu="0", labels={"kubernetes.io/os": "linux"})
    pod = make_pod("s", {"cpu": "1"}, annotations=CRIT)
    pod.labels["kubernetes.io/os"] = "windows"
    res = admit_pod(pod, node, [])
    assert (res.result, res.reason) == ("reject", "PodOSSelectorNodeLabelDoesNotMatch")


@pytest.mark.parametrize(("shortfall", "expected"), [
    # getPodsToPreempt returns append(append(bestEffortToEvict, burstableToEvict...),
    # guaranteedToEvict...). Two pods' worth of pod count: the Burstable step still needs
    # one after all BestEffort pods would go (bu), the BestEffort step one after bu (be).
    (reqs(pods=2), ["bestEffort", "burstable"]),
    # Three: G step needs one after all BE and Bu -> guaranteed; Bu step one after BE and
    # guaranteed -> burstable; BE step one after those -> bestEffort.
    (reqs(pods=3), ["bestEffort", "burstable", "guaranteed"]),
])
def test_kill_order_is_best_effort_then_burstable_then_guaranteed(shortfall, expected):
    inputs = [P["guaranteed"], P["burstable"], P["bestEffort"]]
    victims = get_pods_to_preempt(P["cluster-critical"], inputs, shortfall)
    assert [v.name for v in victims] == expected



# ---- getPodsToPreemptByDistance details (worked from pkg/kubelet/preemption) -----------

def _bu(name: str, cpu: str, memory: str):
    return make_pod(name, {"cpu": cpu, "memory": memory})


def test_distance_squares_each_unmet_fraction() -> None:
    """``calculateDistance``: sum of (unmet / required)^2. For cpu 100m and memory 100Mi,
    a pod of 50m/50Mi leaves (0.5, 0.5) -> 0.25 + 0.25; one of 30m/100Mi leaves (0.7, 0)
    -> 0.49; c (70m/1Mi) -> 0.09 + 0.9801. Round 1 takes the lopsided pod, round 2 (70m
    still needed) takes c at distance 0. With cubes, round 1 would take the even pod."""
    need = reqs(100, 100)
    even, lopsided = _bu("even", "50m", "50Mi"), _bu("lopsided", "30m", "100Mi")
    filler = _bu("c", "70m", "1Mi")
    assert distance(need, even) == pytest.approx(0.5)
    assert distance(need, lopsided) == pytest.approx(0.49)
    victims = get_pods_to_preempt(P["cluster-critical"], [even, lopsided, filler], need)
    assert [v.name for v in victims] == ["lopsided", "c"]


def test_distance_counts_a_remainder_of_one_unit() -> None:
    """A pod one milli-CPU short of the requirement is not at distance 0."""
    assert distance(reqs(cpu=100), _bu("short", "99m", "1Mi")) == pytest.approx(0.0001)


def test_exact_fit_first_beats_a_smaller_pod_further_away() -> None:
    """The request-size tie-break applies only to equal distances."""
    exact, small = _bu("exact", "100m", "100Mi"), _bu("small", "10m", "10Mi")
    victims = get_pods_to_preempt(P["cluster-critical"], [exact, small], reqs(100, 100))
    assert [v.name for v in victims] == ["exact"]


def test_equal_distance_keeps_the_earlier_pod_unless_the_later_is_smaller() -> None:
    """``dist == bestDistance && smallerResourceRequest(pod, bestPod)``: a later pod of
    equal distance but larger request does not replace the earlier one."""
    smaller, larger = _bu("smaller", "100m", "100Mi"), _bu("larger", "200m", "200Mi")
    victims = get_pods_to_preempt(P["cluster-critical"], [smaller, larger], reqs(cpu=100))
    assert [v.name for v in victims] == ["smaller"]


def test_chosen_pod_is_replaced_by_the_last_one() -> None:
    """Upstream removes a chosen pod by moving the last pod into its slot, and the loop
    goes on with that pool. Memory 300Mi needed: round 1 takes b (200Mi, distance 1/9
    beats a's 4/9 and c's 1), the last pod c moves to b's slot; round 2 needs 100Mi,
    a (100Mi, distance 0) goes."""
    a, b, c = _bu("a", "1m", "100Mi"), _bu("b", "1m", "200Mi"), _bu("c", "1m", "1Mi")
    victims = get_pods_to_preempt(P["cluster-critical"], [a, b, c], reqs(memory=300))
    assert [v.name for v in victims] == ["b", "a"]


def test_unmeetable_requirements_report_the_total_shortfall() -> None:
    """``getPodsToPreempt`` first subtracts every preemptable pod; the error names what
    even all of them cannot free."""
    with pytest.raises(PreemptionError) as err:
        get_pods_to_preempt(P["cluster-critical"], [P["burstable"]], reqs(300, 100))
    assert err.value.remaining == (Requirement("cpu", 200),)
    assert str(err.value) == ("no set of running pods found to reclaim resources: "
                              "[(res: cpu, q: 200), ]")


# ---- the admission predicates at their boundaries (pkg/kubelet/lifecycle/predicate.go) --

def test_pod_count_exact_fit_is_admitted_one_more_is_not() -> None:
    """``Fits``: ``len(existing) + 1 > allowedPodNumber`` fails."""
    node = make_node(pods=3)
    others = [make_pod("a"), make_pod("b")]
    assert admit_pod(make_pod("new"), node, others).result == "admit"
    res = admit_pod(make_pod("new"), node, [*others, make_pod("c")])
    assert (res.result, res.reason if res.reason else res.failures[0].reason) == (
        "reject", "OutOfpods")
    failure = res.failures[0]
    assert (failure.requested, failure.used, failure.capacity) == (1, 3, 3)


def test_resource_exact_fit_is_admitted_one_unit_more_is_not() -> None:
    node = make_node(cpu="1", memory="1Gi")
    others = [make_pod("a", {"cpu": "600m", "memory": "512Mi"})]
    assert admit_pod(make_pod("new", {"cpu": "400m", "memory": "512Mi"}), node,
                     others).result == "admit"
    res = admit_pod(make_pod("new", {"cpu": "401m"}), node, others)
    assert res.result == "reject"
    failure = res.failures[0]
    assert (failure.resource, failure.requested, failure.used, failure.capacity) == (
        "cpu", 401, 600, 1000)


def test_exact_fit_on_an_empty_node() -> None:
    """Nothing else uses the resource: the whole allocatable is free."""
    node = make_node(cpu="1")
    assert admit_pod(make_pod("new", {"cpu": "1"}), node, []).result == "admit"


def test_resource_the_node_does_not_have_fails_with_capacity_zero() -> None:
    """A standard resource missing from allocatable counts as zero there (only extended
    resources the node does not advertise are dropped first)."""
    node = make_node()
    res = admit_pod(make_pod("new", {"hugepages-2Mi": "2Mi"}), node, [])
    assert res.result == "reject"
    failure = res.failures[0]
    assert (failure.resource, failure.requested, failure.used, failure.capacity) == (
        "hugepages-2Mi", 2 * MI, 0, 0)


def test_os_label_mismatch_message() -> None:
    node = make_node()  # no kubernetes.io/os label: the kubelet's own OS (linux) counts
    pod = make_pod("p")
    pod.labels["kubernetes.io/os"] = "windows"
    res = admit_pod(pod, node, [])
    assert (res.result, res.reason, res.message) == (
        "reject", "PodOSSelectorNodeLabelDoesNotMatch",
        "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label")
    pod.labels["kubernetes.io/os"] = "linux"
    assert admit_pod(pod, node, []).result == "admit"


def test_os_field_must_match_the_node_os() -> None:
    """``rejectPodAdmissionBasedOnOSField``: ``spec.os.name`` must be the node's OS."""
    res = admit_pod(make_pod("p", os={"name": "windows"}), make_node(), [])
    assert (res.result, res.reason, res.message) == (
        "reject", "PodOSNotSupported",
        "Failed to admit pod as the OS field doesn't match node OS")
    assert admit_pod(make_pod("p", os={"name": "linux"}), make_node(), []).result == "admit"
    windows = make_node(labels={"kubernetes.io/os": "windows"})
    assert admit_pod(make_pod("p", os={"name": "windows"}), windows, []).result == "admit"


def test_admission_checks_only_untolerated_no_execute_taints():
    # lifecycle/predicate.go generalFilter: FindMatchingUntoleratedTaint with a filter for
    # NoExecute only; a NoSchedule taint is the scheduler's business, not the kubelet's.
    node = make_node(taints=[{"key": "k", "effect": "NoSchedule"},
                             {"key": "e", "effect": "NoExecute"}])
    tolerant = make_pod("p", {"cpu": "100m"},
                        tolerations=[{"key": "e", "operator": "Exists", "effect": "NoExecute"}])
    assert admit_pod(tolerant, node, []).result == "admit"


def test_admission_checks_the_node_selector_and_required_node_affinity():
    # generalFilter: GetRequiredNodeAffinity(pod).Match(node) -- nodeSelector and the
    # required node affinity terms, both against the node's labels.
    node = make_node(labels={"zone": "a"})
    term = {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]}
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [term]}}}
    res = admit_pod(make_pod("far", {"cpu": "100m"}, affinity=affinity), node, [])
    assert (res.result, res.reason) == ("reject", "NodeAffinity")
    term["matchExpressions"][0]["values"] = ["a"]
    near = make_pod("near", {"cpu": "100m"}, affinity=affinity, nodeSelector={"zone": "a"})
    assert admit_pod(near, node, []).result == "admit"
    # matchFields metadata.name (as DaemonSet pods carry) is matched against the node name.
    named = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}}}
    assert admit_pod(make_pod("ds", {"cpu": "100m"}, affinity=named), node, []).result == "admit"
