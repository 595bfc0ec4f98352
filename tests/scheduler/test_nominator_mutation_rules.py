"""Which nominees count for a pod follows the pod's priority as it is now.

Upstream ``addNominatedPods`` (``framework/runtime/framework.go``) reads the nominator
afresh in every cycle and counts the nominees whose priority is higher than or equal to
the pod's (``corev1helpers.PodPriority(pi.Pod) >= podPriority``). kubepreempt keeps the
last answer while no nomination changes; it must not be reused once the pod's priority
has changed (a what-if trial re-prioritises the same pod object).
"""

from __future__ import annotations

from builders import cluster_of, node, pod

from kubepreempt.scheduler.nominator import Nominator


def test_the_answer_follows_a_priority_changed_in_place() -> None:
    c = cluster_of(node("n1"), node("n2"),
                   pod("me", "1", priority=5), pod("peer", "1", priority=7))
    me, peer = c.pending["default/me"], c.pending["default/peer"]
    nominator = Nominator()
    nominator.add(peer, "n2")
    assert nominator.counting_by_node(me) == {"n2": [peer]}  # 7 >= 5
    me.priority = 8
    assert nominator.counting_by_node(me) == {}  # 7 < 8: peer no longer counts
    me.priority = 7
    assert nominator.counting_by_node(me) == {"n2": [peer]}  # equal priority counts
    assert nominator.counting_on("n2", me) == [peer]


def test_two_pods_of_equal_priority_get_their_own_answers() -> None:
    """A pod never counts for itself (``addNominatedPods`` skips the pod's own UID): with
    ``a`` nominated to n1, nothing counts for ``a`` but ``a`` counts for ``b``, although
    both have the same priority and no nomination changed in between."""
    c = cluster_of(node("n1"), pod("a", "1", priority=5), pod("b", "1", priority=5))
    a, b = c.pending["default/a"], c.pending["default/b"]
    nominator = Nominator()
    nominator.add(a, "n1")
    assert nominator.counting_by_node(a) == {}
    assert nominator.counting_by_node(b) == {"n1": [a]}
    assert nominator.counting_by_node(a) == {}
