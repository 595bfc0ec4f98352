"""The nominator's bookkeeping (upstream ``nominator``: nominatedPodsToNode per node)."""

from builders import cluster_of, node, pod

from kubepreempt.scheduler.nominated_requests import NominatedRequests
from kubepreempt.scheduler.nominator import Nominator
from kubepreempt.snapshot import PODS


def test_clearing_one_nomination_keeps_the_others_on_that_node() -> None:
    # deleteNominatedPodIfExistsUnlocked removes only that pod from the node's list; the
    # node's entry goes only when its list is empty.
    c = cluster_of(pod("a", "1", priority=5), pod("b", "1", priority=5))
    a, b = c.pending["default/a"], c.pending["default/b"]
    nominator = Nominator()
    nominator.add(a, "n1")
    nominator.add(b, "n1")
    nominator.remove(a)
    assert [p.key for p in nominator.on_node("n1")] == ["default/b"]
    assert nominator.nodes_counting_for(a) == {"n1"}
    assert a.nominated_node_name == "" and len(nominator) == 1


def test_pods_of_other_schedulers_are_skipped_not_the_rest() -> None:
    # eventhandlers.go responsibleForPod: a pod no profile serves never enters the
    # scheduler's nominator; the pods after it still do.
    c = cluster_of(pod("alien", "1", priority=20, spec_extra={"schedulerName": "other"},
                       status_extra={"nominatedNodeName": "n1"}),
                   pod("mine", "1", priority=20, status_extra={"nominatedNodeName": "n1"}))
    pods = [c.pending["default/alien"], c.pending["default/mine"]]
    nominator = Nominator.from_pending(pods, {"n1"}, {"default-scheduler"})
    assert [p.key for p in nominator.on_node("n1")] == ["default/mine"]


def test_counting_nominees_follow_every_nomination_change() -> None:
    # addNominatedPods counts nominees of priority >= the pod's, never the pod itself; the
    # answer for a pod is kept only while no nomination is added or cleared.
    c = cluster_of(node("n1", cpu="8"), node("n2", cpu="8"), node("n3", cpu="8"),
                   pod("me", "1", priority=5), pod("low", "1", priority=4),
                   pod("peer", "2", "1Gi", priority=5), pod("vip", "3", priority=9))
    me, low, peer, vip = (c.pending[f"default/{n}"] for n in ("me", "low", "peer", "vip"))
    nominator = Nominator()
    nominator.add(me, "n1")
    nominator.add(low, "n1")
    assert nominator.counting_by_node(me) == {}
    nominator.add(peer, "n2")
    nominator.add(vip, "n2")
    assert nominator.nodes_counting_for(me) == {"n2"}
    nominator.add(vip, "n3")  # re-nominated elsewhere
    assert nominator.counting_by_node(me) == {"n2": [peer], "n3": [vip]}
    nominator.remove(peer)
    assert nominator.nodes_counting_for(me) == {"n3"}
    assert nominator.nodes_counting_for(low) == {"n1", "n3"}  # me (5) counts for low (4)


def test_nominated_requests_sum_the_counting_nominees_per_node() -> None:
    # The rows filtering and preemption add to each node (addGENominatedPods): summed
    # requests of the nominees that count, one pod each in the pods column.
    c = cluster_of(node("n1", cpu="8"), node("n2", cpu="8"), node("n3", cpu="8"),
                   pod("me", "1", priority=5), pod("low", "1", priority=4),
                   pod("a", "2", "1Gi", priority=5), pod("b", "500m", priority=7),
                   pod("c", "1", priority=6))
    nominator = Nominator()
    for name, node_name in (("low", "n1"), ("a", "n2"), ("b", "n2"), ("c", "n3")):
        nominator.add(c.pending[f"default/{name}"], node_name)
    got = NominatedRequests.of(c, nominator, c.pending["default/me"])
    assert got.rows.tolist() == [1, 2]
    cpu, memory = c.resource_index["cpu"], c.resource_index["memory"]
    assert got.requests[:, [cpu, memory, PODS]].tolist() == [[2500, 2**30, 2], [1000, 0, 1]]
