"""Bound pods loaded from a dump parse their rarely read fields on first read (LazyPod).

The contract: a lazy pod reads exactly as the eagerly parsed pod of the same body, and a
body the loader accepts never fails later, when a plugin first reads a lazy field. Pods
whose fields apiserver validation does not fully check are parsed at once, so their errors
are still reported while loading.
"""

from __future__ import annotations

import copy
import pickle
from dataclasses import fields
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubepreempt.api.errors import InputError, Source
from kubepreempt.api.objects import LazyPod, Pod, parse_pod
from kubepreempt.api.priority import PriorityResolver
from kubepreempt.api.validation import validate_pod
from kubepreempt.cli import main
from kubepreempt.cluster import build_cluster
from kubepreempt.manifests import load_documents

RESOLVE = PriorityResolver([]).resolve
SOURCE = Source("dump.json", 0, 3)


def bound(**spec_extra) -> dict:
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web-1", "namespace": "shop", "uid": "u-1",
                     "labels": {"app": "web"}, "annotations": {"note": "x"}},
        "spec": {"nodeName": "node-a", "priority": 7, "schedulerName": "custom",
                 "terminationGracePeriodSeconds": 12,
                 "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
                 "nodeSelector": {"disk": "ssd"},
                 "containers": [{"name": "app", "ports": [{"containerPort": 80,
                                                           "hostPort": 8080}],
                                 "resources": {"requests": {"cpu": "250m"}}}],
                 **spec_extra},
        "status": {"phase": "Running", "startTime": "2024-01-01T00:00:00Z",
                   "nominatedNodeName": "node-b",
                   "conditions": [{"type": "DisruptionTarget", "status": "True",
                                   "reason": "PreemptionByScheduler"}]},
    }


def field_values(pod: Pod) -> dict:
    return {f.name: getattr(pod, f.name) for f in fields(Pod)}


def test_lazy_pod_reads_as_the_eager_pod() -> None:
    body = bound()
    lazy = parse_pod(body, SOURCE, RESOLVE, lazy=True)
    eager = parse_pod(body, SOURCE, RESOLVE)
    assert type(lazy) is LazyPod and type(eager) is Pod
    assert field_values(lazy) == field_values(eager)
    # the values themselves, worked out from the body
    assert lazy.labels == {"app": "web"} and lazy.uid == "u-1"
    assert lazy.host_ports == (("0.0.0.0", "TCP", 8080),)
    assert lazy.preempted_by_scheduler is True
    assert lazy.nominated_node_name == "node-b"
    assert lazy.termination_grace_period == 12 and lazy.scheduler_name == "custom"
    assert lazy.requests["cpu"] == 250


def test_a_field_set_after_loading_keeps_its_value_when_the_rest_is_parsed() -> None:
    pod = parse_pod(bound(), SOURCE, RESOLVE, lazy=True)
    pod.nominated_node_name = ""  # the simulator clears a nomination
    pod.labels = {"app": "changed"}
    assert pod.tolerations  # first read of another lazy field parses the rest
    assert pod.nominated_node_name == "" and pod.labels == {"app": "changed"}


def test_copies_and_pickles_are_complete() -> None:
    pod = parse_pod(bound(), SOURCE, RESOLVE, lazy=True)
    for other in (copy.copy(pod), copy.deepcopy(pod), pickle.loads(pickle.dumps(pod))):
        assert field_values(other) == field_values(parse_pod(bound(), SOURCE, RESOLVE))


def test_unknown_attribute_is_still_an_attribute_error() -> None:
    pod = parse_pod(bound(), SOURCE, RESOLVE, lazy=True)
    with pytest.raises(AttributeError):
        _ = pod.no_such_field  # type: ignore[attr-defined]
    assert not hasattr(pod, "__setstate__x")


@pytest.mark.parametrize("body", [
    {**bound(), "spec": {**bound()["spec"], "nodeName": ""}},  # pending
    bound(affinity={"podAntiAffinity": {}}),  # read when bound (InterPodAffinity)
    bound(hostNetwork=True),
    bound(topologySpreadConstraints=[]),
    bound(schedulingGates=[]),
    {**bound(), "status": {"conditions": {}}},  # not a list: checked while loading
], ids=["pending", "affinity", "hostNetwork", "spread", "gates", "conditions-map"])
def test_pods_outside_the_common_shape_parse_at_once(body: dict) -> None:
    assert type(parse_pod(body, SOURCE, RESOLVE, lazy=True)) is Pod


@pytest.mark.parametrize("spec_extra, status, message", [
    # hostNetwork makes every containerPort a host port; validation does not read them
    ({"hostNetwork": True, "containers": [{"name": "app", "ports": [
        {"containerPort": "eighty"}]}]}, None, "eighty"),
    # a topology spread constraint's matchLabelKeys must be a list
    ({"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone",
                                     "whenUnsatisfiable": "DoNotSchedule",
                                     "labelSelector": {}, "matchLabelKeys": 5}]}, None, ""),
    ({}, {"phase": "Running", "conditions": 5}, ""),
], ids=["hostNetwork-port", "spread-matchLabelKeys", "conditions-number"])
def test_errors_in_eagerly_parsed_pods_are_reported_while_loading(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], spec_extra: dict,
        status: dict | None, message: str) -> None:
    body = bound(**spec_extra)
    if status is not None:
        body["status"] = status
    nodes = [{"kind": "Node", "metadata": {"name": n},
              "status": {"allocatable": {"cpu": "4", "pods": "10"}}} for n in ("node-a",
                                                                            "node-b")]
    pending = {"kind": "Pod", "metadata": {"name": "new", "namespace": "shop"},
               "spec": {"containers": [{"name": "c"}]}}
    path = tmp_path / "dump.json"
    path.write_bytes(orjson.dumps({"kind": "List", "items": [*nodes, body, pending]}))
    code = main(["schedule", str(path), "--pod", "shop/new", "-o", "json"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "shop/web-1" in err and message in err


# ---- property: whatever the loader accepts, a lazy pod reads as the eager one -------------

_text = st.sampled_from(["", "a", "web", "Bad Value", "x" * 70, "gpu", "node-b"])
_scalar = st.one_of(_text, st.integers(-3, 70000), st.booleans(), st.none(),
                    st.just([1]), st.just({"a": 1}))
_maps = st.one_of(st.none(), st.dictionaries(st.sampled_from(["app", "tier", "bad key", ""]),
                                              _scalar, max_size=3), _scalar)
_toleration = st.fixed_dictionaries({}, optional={
    "key": _scalar, "operator": st.sampled_from(["Exists", "Equal", "", "In", 3]),
    "value": _scalar, "effect": st.sampled_from(["NoSchedule", "NoExecute", "", "Sometimes"]),
    "tolerationSeconds": st.one_of(st.integers(-1, 10), _text)})
_port = st.fixed_dictionaries({}, optional={
    "containerPort": _scalar, "hostPort": _scalar, "protocol": st.sampled_from(
        ["TCP", "UDP", "SCTP", "HTTP", 1]), "hostIP": _scalar})
_container = st.fixed_dictionaries({"name": st.sampled_from(["app", "side"])}, optional={
    "ports": st.one_of(st.lists(st.one_of(_port, _scalar), max_size=2), _scalar)})
_condition = st.one_of(st.fixed_dictionaries({}, optional={
    "type": st.sampled_from(["DisruptionTarget", "Ready", 1]),
    "status": st.sampled_from(["True", "False", None]),
    "reason": st.sampled_from(["PreemptionByScheduler", "Other"])}), _scalar)
_spec_extra = st.fixed_dictionaries({}, optional={
    "tolerations": st.one_of(st.lists(st.one_of(_toleration, _scalar), max_size=3), _scalar),
    "nodeSelector": _maps,
    "priorityClassName": _scalar,
    "schedulerName": _scalar,
    "terminationGracePeriodSeconds": _scalar,
    "hostNetwork": st.booleans(),
    "containers": st.lists(_container, max_size=2),
})
_meta_extra = st.fixed_dictionaries({}, optional={"labels": _maps, "annotations": _maps,
                                                  "uid": _scalar})
_status_extra = st.fixed_dictionaries({}, optional={
    "nominatedNodeName": _scalar,
    "conditions": st.one_of(st.lists(_condition, max_size=3), _scalar)})


@given(_spec_extra, _meta_extra, _status_extra)
def test_accepted_pods_never_fail_on_a_later_read(spec_extra: dict, meta_extra: dict,
                                                  status_extra: dict) -> None:
    body = bound()
    body["spec"] = {**body["spec"], **spec_extra}
    body["metadata"] = {**body["metadata"], **meta_extra}
    body["status"] = {**body["status"], **status_extra}
    if validate_pod(body):
        return  # the loader refuses it before any parse
    try:
        eager = parse_pod(body, SOURCE, RESOLVE)
    except InputError:
        with pytest.raises(InputError):  # refused at load time either way
            parse_pod(body, SOURCE, RESOLVE, lazy=True)
        return
    lazy = parse_pod(body, SOURCE, RESOLVE, lazy=True)
    assert field_values(lazy) == field_values(eager)  # a failing lazy read raises here


def test_loaded_dump_binds_lazy_pods_with_their_requests(tmp_path: Path) -> None:
    nodes = [{"kind": "Node", "metadata": {"name": "node-a"},
              "status": {"allocatable": {"cpu": "4", "pods": "10"}}}]
    path = tmp_path / "dump.json"
    path.write_bytes(orjson.dumps({"kind": "List", "items": [*nodes, bound()]}))
    cluster = build_cluster(load_documents([str(path)]))
    pod = cluster.pods["shop/web-1"]
    assert type(pod) is LazyPod
    assert cluster.requested[0, cluster.resource_index["cpu"]] == 250
    assert pod.labels == {"app": "web"}


def test_a_late_parse_failure_is_an_input_error_naming_the_pod() -> None:
    # Only bodies that passed validation are made lazy; if the body is edited afterwards
    # into something unreadable, the read still fails as bad input, never as a missing
    # attribute or a traceback.
    pod = parse_pod(bound(), SOURCE, RESOLVE, lazy=True)
    pod.raw = {"metadata": ["not", "a", "mapping"]}
    with pytest.raises(InputError, match="shop/web-1"):
        _ = pod.labels
