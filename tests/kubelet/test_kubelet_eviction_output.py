"""``evict-rank``'s JSON and input errors over upstream's memory-pressure ranking
(``pkg/kubelet/eviction/helpers.go`` ``rankMemoryPressure``: a pod without stats first,
then pods above their request, then lower priority, then more usage above the request;
critical pods ranked but never evicted)."""

from __future__ import annotations

import pytest
from builders import cluster_of, node, pod
from kubelet_fixtures import make_pod

from kubepreempt.api.errors import InputError
from kubepreempt.kubelet.eviction import rank_for_eviction, rank_node

MI = 1 << 20


def test_ranking_as_json() -> None:
    # nostats: no usage entry (first). over: 300Mi on a 100Mi request (exceeds).
    # crit: a static pod above its request too, of higher priority: after over, but
    # never the one evicted. under: 50Mi of a 100Mi request (last).
    over = make_pod("over", {"memory": "100Mi"}, priority=0)
    crit = make_pod("crit", {"memory": "100Mi"}, priority=10,
                    annotations={"kubernetes.io/config.source": "file"})
    under = make_pod("under", {"memory": "100Mi"}, priority=0)
    nostats = make_pod("nostats", priority=5)
    usage = {"default/over": {"memory": 300 * MI}, "default/crit": {"memory": 200 * MI},
             "default/under": {"memory": 50 * MI}}
    ranking = rank_for_eviction([under, crit, over, nostats], "memory", usage)
    assert ranking.to_json() == {
        "node": "", "resource": "memory",
        "order": ["default/nostats", "default/over", "default/crit", "default/under"],
        "noMetrics": ["default/nostats"], "next": "default/nostats",
        "critical": ["default/crit"],
        "pods": [
            {"pod": "default/nostats", "priority": 5, "qos": "BestEffort", "request": 0,
             "usage": None, "exceedsRequest": False, "aboveRequest": None,
             "critical": False},
            {"pod": "default/over", "priority": 0, "qos": "Burstable", "request": 100 * MI,
             "usage": 300 * MI, "exceedsRequest": True, "aboveRequest": 200 * MI,
             "critical": False},
            {"pod": "default/crit", "priority": 10, "qos": "Burstable",
             "request": 100 * MI, "usage": 200 * MI, "exceedsRequest": True,
             "aboveRequest": 100 * MI, "critical": True},
            {"pod": "default/under", "priority": 0, "qos": "Burstable",
             "request": 100 * MI, "usage": 50 * MI, "exceedsRequest": False,
             "aboveRequest": -50 * MI, "critical": False},
        ]}


def test_rank_node_names_a_missing_node() -> None:
    c = cluster_of(node("n1"), pod("p", "1", node_name="n1"))
    with pytest.raises(InputError) as exc:
        rank_node(c, "nope", "memory", {})
    assert (exc.value.message, exc.value.kind, exc.value.name) == (
        "node 'nope' is not in the input", "Node", "nope")
