"""The tolerations of a DaemonSet's pods, from upstream
``pkg/controller/daemon/util/daemonset_util.go`` (``AddOrUpdateDaemonPodTolerations``: six
``Exists`` tolerations, a seventh for ``hostNetwork`` pods) and
``pkg/apis/core/v1/helper/helpers.go`` (``AddOrUpdateTolerationInPodSpec``: a toleration
``MatchToleration`` pairs with the new one — same key, operator, value and effect — is
replaced by it, otherwise the new one is appended; the early return for an equal one
compares a ``*Toleration`` with a ``Toleration``, so ``Semantic.DeepEqual`` is false)."""

from __future__ import annotations

from builders import node

from kubepreempt.api.errors import Source
from kubepreempt.api.objects import parse_node
from kubepreempt.controllers.expand import Names, expand

NOT_READY = {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"}
DAEMON = [
    NOT_READY,
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists",
     "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
]
NETWORK = {"key": "node.kubernetes.io/network-unavailable", "operator": "Exists",
           "effect": "NoSchedule"}


def tolerations_of(spec_extra: dict) -> list:
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet",
          "metadata": {"name": "agent", "namespace": "kube-system"},
          "spec": {"template": {"metadata": {"labels": {"app": "agent"}},
                                "spec": {"containers": [{"name": "c", "image": "agent:1"}],
                                         **spec_extra}}}}
    [pod] = expand(ds, Names(), nodes=[parse_node(node("n1"), Source())]).pods
    return pod["spec"]["tolerations"]


def test_a_plain_template_gets_the_six_daemon_tolerations_in_order() -> None:
    assert tolerations_of({}) == DAEMON
    assert tolerations_of({"hostNetwork": True}) == [*DAEMON, NETWORK]


def test_an_equal_toleration_is_not_added_twice() -> None:
    assert tolerations_of({"tolerations": [dict(NOT_READY)]}) == DAEMON


def test_a_matching_toleration_with_seconds_is_replaced_in_place() -> None:
    """The template's ``not-ready`` toleration with ``tolerationSeconds: 300`` matches
    (the seconds are not compared) and is replaced: the daemon pod tolerates it forever."""
    own = {"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}
    got = tolerations_of({"tolerations": [own, {**NOT_READY, "tolerationSeconds": 300}]})
    assert got == [own, *DAEMON]


def test_a_toleration_differing_in_operator_or_effect_stays_beside_the_new_one() -> None:
    """``MatchToleration`` compares the operator as written (unset is not ``Exists``) and
    the effect: these are kept and the daemon tolerations appended after them."""
    equal_op = {"key": "node.kubernetes.io/not-ready", "operator": "Equal",
                "effect": "NoExecute"}
    no_op = {"key": "node.kubernetes.io/memory-pressure", "effect": "NoSchedule"}
    other_effect = {"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                    "effect": "NoSchedule"}
    got = tolerations_of({"tolerations": [equal_op, no_op, other_effect]})
    assert got == [equal_op, no_op, other_effect, *DAEMON]


def test_a_template_node_name_limits_the_daemonset_to_that_node() -> None:
    """``NodeShouldRunDaemonPod``: a template ``nodeName`` other than the node's means
    the node should not run the pod."""
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet",
          "metadata": {"name": "agent", "namespace": "kube-system"},
          "spec": {"template": {"metadata": {"labels": {"app": "agent"}},
                                "spec": {"nodeName": "n2",
                                         "containers": [{"name": "c", "image": "agent:1"}]}}}}
    nodes = [parse_node(node(n), Source()) for n in ("n1", "n2", "n3")]
    [pod] = expand(ds, Names(), nodes=nodes).pods
    terms = pod["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms == [{"matchFields": [{"key": "metadata.name", "operator": "In",
                                       "values": ["n2"]}]}]


def test_an_empty_value_written_out_matches_an_unset_one() -> None:
    """``MatchToleration`` compares ``Value`` strings: ``value: ""`` is the unset value."""
    assert tolerations_of({"tolerations": [{**NOT_READY, "value": ""}]}) == DAEMON
