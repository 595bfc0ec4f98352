"""The pod validation's fast acceptor never accepts what the full validation refuses.

``validate_pod`` first asks ``known_valid_pod``, which answers from the values earlier
pods proved valid (label pairs, DNS labels, resource stanzas, toleration lists) and one
regex match per name; only a "no" runs every check. The oracle here is the full check
(``pod_errors``), an independent code path: for generated pods, the acceptor's "yes" must
mean no errors, and common pods must get a "yes" (else the fast path is never taken).
"""

from __future__ import annotations

import copy

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubepreempt.api.object_validation import pod_errors, validate_pod
from kubepreempt.api.pod_fast_accept import known_valid_pod


def common_pod() -> dict:
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web-1", "namespace": "shop", "labels": {"app": "web"},
                     "annotations": {"note": "x"}},
        "spec": {"nodeName": "node-a", "priority": 7, "schedulerName": "default-scheduler",
                 "terminationGracePeriodSeconds": 30, "preemptionPolicy": "Never",
                 "tolerations": [{"key": "node.kubernetes.io/not-ready",
                                  "operator": "Exists", "effect": "NoExecute",
                                  "tolerationSeconds": 300}],
                 "containers": [{"name": "app", "ports": [{"containerPort": 80,
                                                           "protocol": "TCP"}],
                                 "resources": {"requests": {"cpu": "250m"},
                                               "limits": {"memory": "1Gi"}}}]},
        "status": {"phase": "Running"},
    }


def test_a_common_pod_is_accepted_fast_once_its_values_were_seen() -> None:
    pod = common_pod()
    assert validate_pod(pod) == []  # the full check runs once and learns the values
    other = copy.deepcopy(pod)
    other["metadata"]["name"] = "web-2"
    other["spec"]["nodeName"] = "node-b"
    assert known_valid_pod(other)


def test_unseen_or_unusual_values_take_the_full_check() -> None:
    validate_pod(common_pod())
    for path, value in [(("metadata", "labels"), {"app": "never-seen-before-value"}),
                        (("metadata", "namespace"), "Bad_Namespace"),
                        (("metadata", "annotations"), {1: "x"}),
                        (("spec", "priority"), True),
                        (("spec", "affinity"), {}),
                        (("spec", "terminationGracePeriodSeconds"), -1)]:
        pod = common_pod()
        pod[path[0]][path[1]] = value
        assert not known_valid_pod(pod), path


_scalar = st.one_of(st.sampled_from(["", "app", "web", "Bad Value", "x" * 64, "TCP", "UDP",
                                     "HTTP", "Never", "Always", "web-1", "-bad"]),
                    st.integers(-2, 70000), st.booleans(), st.none(), st.floats(-1, 2),
                    st.just([1]), st.just({"a": "b"}))
_names = st.sampled_from(["app", "side", "", "App", "a" * 64, None, 3])
_resources = st.one_of(st.none(), _scalar, st.fixed_dictionaries({}, optional={
    "requests": st.one_of(_scalar, st.dictionaries(st.sampled_from(["cpu", "memory", "pods",
                                                                    "foo", "example.com/x"]),
                                                   st.sampled_from(["1", "250m", "-1",
                                                                    "1.5", "x", 2]),
                                                   max_size=2)),
    "limits": st.one_of(_scalar, st.dictionaries(st.sampled_from(["cpu", "memory"]),
                                                 st.sampled_from(["2", "1Gi", "z"]),
                                                 max_size=2)),
    "claims": st.just([])}))
_port = st.one_of(_scalar, st.fixed_dictionaries({}, optional={
    "hostPort": _scalar, "containerPort": _scalar, "protocol": _scalar}))
_container = st.one_of(_scalar, st.fixed_dictionaries({}, optional={
    "name": _names, "resources": _resources,
    "ports": st.one_of(_scalar, st.lists(_port, max_size=2))}))
_toleration = st.one_of(_scalar, st.fixed_dictionaries({}, optional={
    "key": _scalar, "operator": st.sampled_from(["Exists", "Equal", "", "In"]),
    "value": _scalar, "effect": st.sampled_from(["NoSchedule", "NoExecute", "", "x"]),
    "tolerationSeconds": _scalar}))
_metadata = st.fixed_dictionaries({}, optional={
    "name": st.one_of(_scalar, st.sampled_from(["web-1", "a.b", "A", "a" * 254])),
    "namespace": st.one_of(_scalar, st.sampled_from(["shop", "kube-system", "Shop"])),
    "labels": st.one_of(_scalar, st.dictionaries(st.sampled_from(["app", "bad key", ""]),
                                                 _scalar, max_size=2)),
    "annotations": st.one_of(_scalar, st.dictionaries(st.sampled_from(["a", "b"]), _scalar,
                                                      max_size=2))})
_spec = st.fixed_dictionaries({}, optional={
    "containers": st.one_of(_scalar, st.lists(_container, max_size=3)),
    "tolerations": st.one_of(_scalar, st.lists(_toleration, max_size=2)),
    "priority": st.one_of(_scalar, st.sampled_from([2**31 - 1, 2**31, -2**31 - 1])),
    "terminationGracePeriodSeconds": st.one_of(_scalar, st.just(2**63)),
    "nodeName": _scalar, "priorityClassName": _scalar, "schedulerName": _scalar,
    "preemptionPolicy": _scalar, "nodeSelector": _scalar, "overhead": _scalar})


@given(st.lists(st.tuples(_metadata, _spec), min_size=1, max_size=6))
def test_the_fast_yes_always_means_no_errors(pods: list[tuple[dict, dict]]) -> None:
    # Earlier pods teach the caches (through validate_pod, as loading does); each later
    # fast "yes" is then checked against every rule.
    for metadata, spec in pods:
        body = {"kind": "Pod", "metadata": metadata, "spec": spec}
        if known_valid_pod(body):
            assert pod_errors(body) == [], body
        validate_pod(body)


# One field of a known-valid pod changed: the acceptor's verdict hangs on that field.
_EDITS = st.one_of(
    st.tuples(st.just(("metadata", "name")),
              st.one_of(_scalar, st.sampled_from(["web-9", "Web", "a" * 254, "a..b", "-a"]))),
    st.tuples(st.just(("metadata", "namespace")),
              st.one_of(_scalar, st.sampled_from(["shop", "Shop", "a" * 64]))),
    st.tuples(st.just(("metadata", "labels")), _metadata.map(lambda m: m.get("labels"))),
    st.tuples(st.just(("metadata", "annotations")),
              st.one_of(_scalar, st.just({1: "x"}), st.just({"a": 1}))),
    st.tuples(st.sampled_from([("spec", f) for f in (
        "priority", "terminationGracePeriodSeconds", "nodeName", "priorityClassName",
        "schedulerName", "preemptionPolicy", "overhead", "nodeSelector")]),
        st.one_of(_scalar, st.sampled_from([2**31 - 1, 2**31, -2**31, -2**31 - 1, 2**63 - 1,
                                            2**63, 0, -1, 30, "PreemptLowerPriority"]))),
    st.tuples(st.just(("spec", "tolerations")), st.lists(_toleration, max_size=2)),
    st.tuples(st.just(("container", "name")),
              st.one_of(_names, st.sampled_from(["side", "app"]))),
    st.tuples(st.just(("container", "resources")), _resources),
    st.tuples(st.just(("port", "hostPort")),
              st.one_of(_scalar, st.sampled_from([0, 1, 65535, 65536, -1, 8080.0]))),
    st.tuples(st.just(("port", "protocol")), _scalar),
    st.tuples(st.just(("spec", "containers")),
              st.just([{"name": "app"}, {"name": "app"}])),  # a duplicate name
)


@given(st.lists(_EDITS, min_size=1, max_size=3))
def test_an_edited_known_pod_is_accepted_only_if_valid(edits: list) -> None:
    validate_pod(common_pod())  # the acceptor has seen every value of the common pod
    pod = common_pod()
    for (where, field), value in edits:
        _edit(pod, where, field, value)
    if known_valid_pod(pod):
        assert pod_errors(pod) == [], pod


def _edit(pod: dict, where: str, field: str, value: object) -> dict:
    if where == "container":
        pod["spec"]["containers"][0][field] = value
    elif where == "port":  # (an earlier edit may have replaced the containers)
        ports = pod["spec"]["containers"][0].setdefault("ports", [])
        if not ports:
            ports.append({})
        ports[0][field] = value
    else:
        pod[where][field] = value
    return pod


@pytest.mark.parametrize("where, field, value", [
    ("port", "hostPort", 65536), ("port", "hostPort", -1), ("port", "hostPort", True),
    ("port", "protocol", "HTTP"),
    ("spec", "priority", 2**31), ("spec", "priority", -2**31 - 1),
    ("spec", "terminationGracePeriodSeconds", -1),
    ("spec", "terminationGracePeriodSeconds", 2**63),
    ("spec", "preemptionPolicy", "Sometimes"), ("spec", "nodeName", 5),
    ("container", "name", "Bad_Name"), ("container", "name", "a" * 64),
    ("metadata", "namespace", "Shop"), ("metadata", "name", "Web"),
    ("metadata", "annotations", {1: "x"}), ("metadata", "labels", {"app": "a b"}),
    ("spec", "containers", [{"name": "app"}, {"name": "app"}]),
])
def test_boundary_values_are_refused(where: str, field: str, value: object) -> None:
    validate_pod(common_pod())
    pod = _edit(common_pod(), where, field, value)
    assert pod_errors(pod) != []  # the case is really invalid
    assert not known_valid_pod(pod)
    assert validate_pod(pod) != []


def test_node_quantities_are_remembered_only_when_valid() -> None:
    from kubepreempt.api.object_validation import validate_node

    def node(pods: str) -> dict:
        return {"kind": "Node", "metadata": {"name": "n1"},
                "status": {"allocatable": {"cpu": "4", "pods": pods}}}

    assert validate_node(node("110")) == [] and validate_node(node("110")) == []
    for _ in range(2):  # a refused figure is refused every time
        errors = validate_node(node("1500m"))
        assert [e.detail for e in errors] == ["must be an integer"]


def test_refused_values_never_become_known() -> None:
    for where, field, value in [("metadata", "labels", {"app": "a b"}),
                                ("metadata", "namespace", "Shop"),
                                ("container", "name", "Bad_Name"),
                                ("container", "resources", {"requests": {"cpu": "-1"}}),
                                ("spec", "tolerations", [{"operator": "In"}])]:
        pod = _edit(common_pod(), where, field, value)
        for _ in range(2):
            assert validate_pod(pod) != [], (field, value)
            assert not known_valid_pod(pod), (field, value)
