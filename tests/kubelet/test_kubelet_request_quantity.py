"""The kubelet's request figure: ``v1resource.GetResourceRequestQuantity``.

The node's used total counts a pod's overhead, but what a victim frees
(``getPodsToPreempt`` via ``GetResourceRequest``) and what eviction ranking compares usage
with (``exceedMemoryRequests``, ``memory``, ``exceedDiskRequests``, ``disk``) add
``spec.overhead`` only to a resource the containers request at all.
"""

from __future__ import annotations

from kubelet_fixtures import make_node, make_pod

from kubepreempt.kubelet.admission import Requirement, admit_pod, get_pods_to_preempt
from kubepreempt.kubelet.eviction import rank_for_eviction

MI = 1 << 20
CRIT = {"kubernetes.io/config.source": "file"}
CRITICAL = make_pod("critical", {"cpu": "100m"}, priority=2_000_000_000,
                    namespace="kube-system", priorityClassName="system-cluster-critical")


def test_request_quantity_adds_overhead_only_to_requested_resources():
    p = make_pod("p", {"cpu": "200m"}, overhead={"cpu": "50m", "memory": "64Mi"})
    assert p.requests == {"cpu": 250, "memory": 64 * MI}  # the scheduler's figure
    assert p.kubelet_requests == {"cpu": 250}  # memory: containers request none


def test_overhead_only_pod_frees_nothing():
    # BestEffort pod whose only request is 600m cpu overhead; Burstable pod 200m cpu.
    # Upstream: the overhead-only pod frees 0 cpu, so the BestEffort step cannot help and
    # the Burstable pod is the victim. (Counting the overhead would pick the BE pod.)
    overhead_only = make_pod("overhead-only", overhead={"cpu": "600m"})
    burstable = make_pod("burstable", {"cpu": "200m"})
    victims = get_pods_to_preempt(CRITICAL, [overhead_only, burstable],
                                  (Requirement("cpu", 200),))
    assert [v.name for v in victims] == ["burstable"]


def test_overhead_counts_in_the_node_used_total():
    # Node 1 cpu; used = 600m overhead + 200m = 800m; the static pod asks 400m: the
    # shortfall is 400 - (1000 - 800) = 200m, and the Burstable pod covers it.
    node = make_node(cpu="1")
    pods = [make_pod("overhead-only", overhead={"cpu": "600m"}),
            make_pod("burstable", {"cpu": "200m"})]
    res = admit_pod(make_pod("static", {"cpu": "400m"}, annotations=CRIT), node, pods)
    assert res.failures[0].used == 800
    assert res.shortfall == (Requirement("cpu", 200),)
    assert res.victim_keys == ["default/burstable"]


def test_overhead_only_pod_exceeds_its_zero_memory_request():
    # exceedMemoryRequests compares usage with GetResourceRequestQuantity: 0 for a pod
    # whose only memory is overhead, so 50Mi of usage exceeds it and it ranks first despite
    # its higher priority. (With the 100Mi overhead as its request it would not exceed.)
    overhead_only = make_pod("overhead-only", priority=10, overhead={"memory": "100Mi"})
    within = make_pod("within", {"memory": "1Gi"}, priority=0)
    usage = {"default/overhead-only": {"memory": 50 * MI},
             "default/within": {"memory": 500 * MI}}
    ranking = rank_for_eviction([within, overhead_only], "memory", usage)
    assert ranking.order == ["default/overhead-only", "default/within"]
    assert ranking.ranked[0].request == 0


def test_disk_ranking_adds_overhead_to_a_requested_resource():
    # a requests 100Mi ephemeral-storage plus 150Mi overhead: its request figure is 250Mi,
    # so 200Mi of usage does not exceed it; neither pod exceeds, and the lower priority (b)
    # ranks first. (Without the overhead a would exceed and rank first.)
    a = make_pod("a", {"ephemeral-storage": "100Mi"}, priority=10,
                 overhead={"ephemeral-storage": "150Mi"})
    b = make_pod("b", {"ephemeral-storage": "1Gi"}, priority=0)
    usage = {"default/a": {"ephemeral-storage": 200 * MI},
             "default/b": {"ephemeral-storage": 10 * MI}}
    ranking = rank_for_eviction([a, b], "ephemeral-storage", usage)
    assert ranking.order == ["default/b", "default/a"]
    assert ranking.ranked[1].request == 250 * MI


def test_stored_qos_class_is_used():
    # v1qos.GetPodQOS (sortPodsByQOS, eviction): status.qosClass when set. A pod stored as
    # Guaranteed stays Guaranteed even if its spec alone would compute otherwise.
    from kubepreempt.api.errors import Source
    from kubepreempt.api.objects import parse_pod
    from kubepreempt.api.priority import PriorityResolver
    raw = {"kind": "Pod", "metadata": {"name": "p"},
           "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]},
           "status": {"qosClass": "Guaranteed"}}
    assert parse_pod(raw, Source("t"), PriorityResolver().resolve).qos == "Guaranteed"
    raw["status"] = {}
    assert parse_pod(raw, Source("t"), PriorityResolver().resolve).qos == "Burstable"
