"""Controller expansion rules at their boundaries, with the upstream controllers' answers."""

from __future__ import annotations

import re

import pytest
from builders import node

from kubepreempt.api.errors import Source
from kubepreempt.api.objects import parse_node
from kubepreempt.controllers.expand import (
    ALPHANUMS,
    Names,
    expand,
    pods_prefix,
)

TEMPLATE = {"metadata": {"labels": {"app": "agent"}},
            "spec": {"containers": [{"name": "c", "image": "agent:1"}]}}


def daemonset(name: str = "agent", template: dict | None = None) -> dict:
    return {"apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": {"name": name, "namespace": "kube-system"},
            "spec": {"template": template or TEMPLATE}}


def nodes(*raw: dict) -> list:
    return [parse_node(n, Source("test.yaml", i)) for i, n in enumerate(raw)]


def pinned_nodes(exp) -> list[str]:
    return [p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
            ["nodeSelectorTerms"][0]["matchFields"][0]["values"][0] for p in exp.pods]


def test_daemonset_skips_a_node_with_an_untolerated_no_execute_taint() -> None:
    """Upstream ``NodeShouldRunDaemonPod`` (pkg/controller/daemon/daemon_controller.go):
    ``predicates`` looks for an untolerated taint with effect NoExecute *or* NoSchedule
    (``FindMatchingUntoleratedTaint``); with one, shouldRun is false, so a new DaemonSet
    creates no pod on node ``evict`` (``dedicated=db:NoExecute``, not among the daemon
    tolerations ``AddOrUpdateDaemonPodTolerations`` adds). A template tolerating the
    taint runs there.

    Kills the mutation that drops ``NO_EXECUTE`` from the effects
    ``node_should_run_daemon_pod`` checks."""
    cluster_nodes = nodes(
        node("evict", taints=[{"key": "dedicated", "value": "db", "effect": "NoExecute"}]),
        node("plain"))
    assert pinned_nodes(expand(daemonset(), Names(), nodes=cluster_nodes)) == ["plain"]
    tolerating = {**TEMPLATE, "spec": {**TEMPLATE["spec"], "tolerations": [
        {"key": "dedicated", "operator": "Equal", "value": "db", "effect": "NoExecute"}]}}
    assert pinned_nodes(expand(daemonset(template=tolerating), Names(),
                               nodes=cluster_nodes)) == ["evict", "plain"]


@pytest.mark.parametrize(("length", "dash"), [(252, True), (253, True), (254, False)])
def test_pods_prefix_keeps_the_dash_up_to_a_254_character_prefix(length: int,
                                                                  dash: bool) -> None:
    """Upstream ``getPodsPrefix`` (pkg/controller/controller_utils.go) uses ``<name>-``
    unless ``ValidatePodName(prefix, true)`` fails. As a prefix the name goes through
    ``maskTrailingDash`` (apimachinery pkg/api/validation/generic.go), which returns
    ``name[:len(name)-2] + "a"``: one character shorter. So ``<name>-`` of 254 characters
    (a 253-character name) masks to 253 and is a valid DNS subdomain; a 254-character
    name gives 255 -> 254, too long, and the prefix is the bare name. The pod keeps that
    prefix as ``generateName``; its name is the prefix cut to 58 characters plus 5 random
    ones (``SimpleNameGenerator``).

    Kills the mutations ``len(prefix) - 1 <= 253`` -> ``len(prefix) <= 253`` (the former
    off-by-one) and -> ``len(prefix) - 2 <= 253`` in ``pods_prefix``."""
    name = "d" * length
    want = name + "-" if dash else name
    assert pods_prefix(name) == want
    (pod,) = expand(daemonset(name), Names(), nodes=nodes(node("n1"))).pods
    assert pod["metadata"]["generateName"] == want
    assert re.fullmatch(f"d{{58}}[{ALPHANUMS}]{{5}}", pod["metadata"]["name"])


@pytest.mark.parametrize(("length", "kept"), [(57, 57), (58, 58), (59, 58), (253, 58)])
def test_generated_name_cuts_the_base_to_58_characters(length: int, kept: int) -> None:
    """Upstream ``SimpleNameGenerator.GenerateName`` (apiserver pkg/storage/names): a base
    longer than ``MaxGeneratedNameLength`` = 63 - 5 = 58 is cut to 58, then 5 random
    characters follow, so a generated name has at most 63 characters.

    Kills mutations of ``MAX_GENERATED_NAME_LENGTH`` and of the cut in
    ``Names.generate``."""
    name = Names().generate("ns", "b" * length)
    assert re.fullmatch(f"b{{{kept}}}[{ALPHANUMS}]{{5}}", name)
