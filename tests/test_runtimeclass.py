"""RuntimeClass admission for pods the apiserver has not admitted yet.

Expected behaviour from ``plugin/pkg/admission/runtimeclass`` (``Admit``: ``setOverhead``,
``setScheduling``; ``prepareObjects`` rejects an unknown class) and
``pkg/util/tolerations.MergeTolerations``.
"""

from __future__ import annotations

import pytest
from builders import cluster_of, node, pod

from kubepreempt.api.errors import InputError
from kubepreempt.api.runtimeclass import merge_tolerations
from kubepreempt.decide import schedule


def runtime_class(name: str, overhead: dict | None = None, selector: dict | None = None,
                  tolerations: list | None = None) -> dict:
    out: dict = {"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass",
                 "metadata": {"name": name}, "handler": name}
    if overhead is not None:
        out["overhead"] = {"podFixed": overhead}
    if selector is not None or tolerations is not None:
        out["scheduling"] = {}
        if selector is not None:
            out["scheduling"]["nodeSelector"] = selector
        if tolerations is not None:
            out["scheduling"]["tolerations"] = tolerations
    return out


def _with_class(p: dict, name: str) -> dict:
    p["spec"]["runtimeClassName"] = name
    return p


def test_overhead_of_the_class_is_applied_to_a_hand_written_pod():
    cluster = cluster_of(node("n1", cpu="1"), runtime_class("kata", {"cpu": "250m"}),
                         _with_class(pod("new", "800m"), "kata"))
    p = cluster.find_pod("default/new")
    assert p.requests["cpu"] == 1050
    decision = schedule(cluster, "default/new", preemption=False)
    assert decision.message.startswith("0/1 nodes are available: 1 Insufficient cpu.")


def test_admitted_pods_are_left_alone():
    # A pod from a dump (it has a uid) was admitted already; its class may be gone.
    p = _with_class(pod("running", "800m", node_name="n1", meta_extra={"uid": "u-1"}), "old")
    cluster = cluster_of(node("n1"), p)
    assert cluster.find_pod("default/running").requests == {"cpu": 800}


def test_pod_that_carries_overhead_is_taken_as_admitted():
    p = _with_class(pod("new", "800m", spec_extra={"overhead": {"cpu": "100m"}}), "kata")
    cluster = cluster_of(node("n1"), runtime_class("kata", {"cpu": "250m"}), p)
    assert cluster.find_pod("default/new").requests == {"cpu": 900}


def test_unknown_runtime_class_rejects_the_pod():
    with pytest.raises(InputError, match='pod rejected: RuntimeClass "missing" not found'):
        cluster_of(node("n1"), _with_class(pod("new", "1"), "missing"))


def test_scheduling_node_selector_and_tolerations_are_merged():
    rc = runtime_class("gvisor", selector={"sandbox": "gvisor"},
                       tolerations=[{"key": "sandbox", "operator": "Exists",
                                     "effect": "NoSchedule"}])
    taint = [{"key": "sandbox", "value": "true", "effect": "NoSchedule"}]
    cluster = cluster_of(node("plain"), node("sandbox", labels={"sandbox": "gvisor"},
                                             taints=taint),
                         rc, _with_class(pod("new", "100m"), "gvisor"))
    p = cluster.find_pod("default/new")
    assert p.node_selector == {"sandbox": "gvisor"}
    decision = schedule(cluster, "default/new", preemption=False)
    assert (decision.result, decision.node) == ("scheduled", "sandbox")


def test_conflicting_node_selector_rejects_the_pod():
    rc = runtime_class("gvisor", selector={"sandbox": "gvisor"})
    p = _with_class(pod("new", "100m", spec_extra={"nodeSelector": {"sandbox": "kata"}}),
                    "gvisor")
    with pytest.raises(InputError, match=r"conflict: runtimeClass\.scheduling\.nodeSelector"
                                         r"\[sandbox\] = gvisor; pod\.spec\.nodeSelector"
                                         r"\[sandbox\] = kata"):
        cluster_of(node("n1"), rc, p)


def test_runtime_class_objects_are_read_not_skipped(capsys):
    from builders import docs_of

    from kubepreempt.cluster import build_cluster
    build_cluster(docs_of(node("n1"), runtime_class("kata")), warn=True)
    assert "RuntimeClass" not in capsys.readouterr().err


@pytest.mark.parametrize(("first", "second", "expected"), [
    # A wider toleration from the class replaces the pod's narrower one.
    ([{"key": "a", "operator": "Equal", "value": "1", "effect": "NoSchedule"}],
     [{"key": "a", "operator": "Exists"}],
     [{"key": "a", "operator": "Exists"}]),
    # Equal tolerations are kept once; unrelated ones both stay, pod's first.
    ([{"key": "a", "operator": "Exists"}, {"key": "b", "operator": "Exists"}],
     [{"key": "a", "operator": "Exists"}, {"key": "c", "operator": "Exists"}],
     [{"key": "a", "operator": "Exists"}, {"key": "b", "operator": "Exists"},
      {"key": "c", "operator": "Exists"}]),
    # Empty key with Exists tolerates everything.
    ([{"key": "a", "operator": "Exists", "effect": "NoExecute"}],
     [{"operator": "Exists"}],
     [{"operator": "Exists"}]),
    # A bounded NoExecute toleration does not cover an unbounded one.
    ([{"key": "a", "operator": "Exists", "effect": "NoExecute"}],
     [{"key": "a", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 5}],
     [{"key": "a", "operator": "Exists", "effect": "NoExecute"}]),
])
def test_merge_tolerations(first, second, expected):
    assert merge_tolerations(first, second) == expected


def test_simulator_pods_are_admitted_too():
    from builders import docs_of

    from kubepreempt.sim.scenario import build_scenario
    scen = build_scenario(docs_of(node("n1"), runtime_class("kata", {"cpu": "250m"}),
                                  _with_class(pod("new", "800m"), "kata")))
    assert [p.pod.requests for p in scen.pods] == [{"cpu": 1050}]


def test_malformed_runtime_class_names_the_object():
    bad = runtime_class("kata")
    del bad["handler"]
    with pytest.raises(InputError, match="RuntimeClass kata: handler must be a non-empty"):
        cluster_of(node("n1"), bad)
