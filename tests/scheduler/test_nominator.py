"""The nominator's bookkeeping (upstream ``nominator``: nominatedPodsToNode per node)."""

from builders import cluster_of, pod

from kubepreempt.scheduler.nominator import Nominator


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
