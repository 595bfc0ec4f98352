"""Sweep edits: JSON Patch operations on the scenario's objects, and ``count``."""

from __future__ import annotations

import io

import pytest
from builders.sweep import SCENARIO

from kubepreempt.manifests import Documents, load_documents
from kubepreempt.sim import build_scenario
from kubepreempt.sweep.edits import EditError, apply_edits, parse_edit

CLUSTER_QUEUE = """
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: team-a}
spec:
  cohort: all
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: "8"}]
"""


def docs(text: str = SCENARIO) -> Documents:
    return load_documents(["-"], stdin=io.StringIO(text))


def edit(**raw) -> object:
    return parse_edit(raw)


def test_replace_priority_class_value_changes_pod_priorities() -> None:
    base = docs()
    out = apply_edits(base, [edit(op="replace", kind="PriorityClass", name="low",
                                  path="/value", value=500)])
    scen = build_scenario(out, 0)
    lows = [p.pod.priority for p in scen.pods if p.pod.namespace == "jobs"]
    assert lows and set(lows) == {500}
    # The base documents are untouched (every variant starts from them).
    assert {p.pod.priority for p in build_scenario(base, 0).pods
            if p.pod.namespace == "jobs"} == {0}


def test_add_preemption_policy() -> None:
    out = apply_edits(docs(), [edit(op="add", kind="PriorityClass", name="high",
                                    path="/preemptionPolicy", value="Never")])
    scen = build_scenario(out, 0)
    highs = {p.pod.preemption_policy for p in scen.pods if p.pod.namespace == "web"}
    assert highs == {"Never"}


def test_pdb_min_available_in_its_namespace() -> None:
    out = apply_edits(docs(), [edit(op="replace", kind="PodDisruptionBudget",
                                    name="low-pdb", namespace="jobs",
                                    path="/spec/minAvailable", value=3)])
    assert [p.min_available for p in build_scenario(out, 0).cluster.pdbs] == [3]
    with pytest.raises(EditError, match="no PodDisruptionBudget in the scenario matches"):
        apply_edits(docs(), [edit(op="replace", kind="PodDisruptionBudget", name="low-pdb",
                                  namespace="web", path="/spec/minAvailable", value=3)])


def test_arrival_rate_through_a_key_list_path() -> None:
    # The key list is the pointer /metadata/annotations/kubepreempt.io~1rate.
    fast = apply_edits(docs(), [edit(op="replace", kind="Pod", name="low",
                                     path=["metadata", "annotations", "kubepreempt.io/rate"],
                                     value="60/m")])
    slow = build_scenario(docs(), 4)
    quick = build_scenario(fast, 4)
    last = max(p.arrival for p in slow.pods if p.pod.namespace == "jobs")
    last_fast = max(p.arrival for p in quick.pods if p.pod.namespace == "jobs")
    # Same seed, same exponential draws, ten times the rate: arrivals come ten times sooner.
    assert last_fast == pytest.approx(last / 10)


def test_count_sets_how_many_times_a_node_appears() -> None:
    out = apply_edits(docs(), [edit(op="count", kind="Node", name="n1", value=3)])
    names = [n.name for n in build_scenario(out, 0).cluster.nodes]
    assert names == ["n1", "n1-2", "n1-3", "n2"]
    gone = apply_edits(docs(), [edit(op="count", kind="Node", name="n2", value=0)])
    assert [n.name for n in build_scenario(gone, 0).cluster.nodes] == ["n1"]


def test_name_glob_selects_every_match() -> None:
    out = apply_edits(docs(), [edit(op="replace", kind="Node", name="n*",
                                    path="/status/allocatable/cpu", value="8")])
    assert [n.allocatable["cpu"] for n in build_scenario(out, 0).cluster.nodes] == \
        [8000, 8000]


def test_cluster_queue_quota_and_weight_are_plain_object_edits() -> None:
    base = docs(CLUSTER_QUEUE)
    out = apply_edits(base, [
        edit(op="replace", kind="ClusterQueue", name="team-a",
             path="/spec/resourceGroups/0/flavors/0/resources/0/nominalQuota", value="16"),
        edit(op="add", kind="ClusterQueue", name="team-a", path="/spec/fairSharing",
             value={"weight": 2})])
    body = out.of("ClusterQueue")[0].body
    assert body["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] \
        == "16"
    assert body["spec"]["fairSharing"] == {"weight": 2}


def test_remove_and_test_ops() -> None:
    out = apply_edits(docs(), [edit(op="test", kind="PriorityClass", name="low",
                                    path="/value", value=0),
                               edit(op="remove", kind="Pod", name="high",
                                    path="/metadata/annotations/kubepreempt.io~1rate")])
    highs = [p for p in build_scenario(out, 0).pods if p.pod.namespace == "web"]
    assert [p.arrival for p in highs] == [30.0] * 4  # no rate: all arrive together
    with pytest.raises(EditError, match=r"edit 1 \(test PriorityClass low /value\)"):
        apply_edits(docs(), [edit(op="test", kind="PriorityClass", name="low",
                                  path="/value", value=7)])


@pytest.mark.parametrize(("raw", "message"), [
    ({"op": "set", "kind": "Node"}, "op must be one of"),
    ({"op": "replace", "path": "/value", "value": 1}, "needs the kind"),
    ({"op": "replace", "kind": "Node", "value": 1}, "replace needs a path"),
    ({"op": "replace", "kind": "Node", "path": "/x"}, "replace needs a value"),
    ({"op": "replace", "kind": "Node", "path": "value", "value": 1}, "JSON pointer"),
    ({"op": "count", "kind": "Node", "value": -1}, "integer >= 0"),
    ({"op": "count", "kind": "Node", "value": 2, "path": "/x"}, "count takes no path"),
    ({"op": "copy", "kind": "Node", "path": "/x"}, "copy needs from"),
    ({"op": "add", "kind": "Node", "path": "/x", "value": 1, "colour": "red"},
     "unknown field"),
])
def test_malformed_edits(raw: dict, message: str) -> None:
    with pytest.raises(EditError, match=message):
        parse_edit(raw)


def test_edit_that_does_not_apply_names_edit_and_object() -> None:
    with pytest.raises(EditError, match=r"edit 2 \(replace PriorityClass high /nope/deeper\) "
                                        r"on PriorityClass high"):
        apply_edits(docs(), [edit(op="replace", kind="PriorityClass", name="low",
                                  path="/value", value=1),
                             edit(op="replace", kind="PriorityClass", name="high",
                                  path="/nope/deeper", value=1)])


def test_count_copies_that_collide_are_duplicates() -> None:
    text = SCENARIO + "\n---\n" + "apiVersion: v1\nkind: Node\nmetadata: {name: n1-2}\n"
    with pytest.raises(EditError, match="duplicate"):
        apply_edits(docs(text), [edit(op="count", kind="Node", name="n1", value=2)])


def test_object_without_namespace_is_in_default() -> None:
    text = SCENARIO + "\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: solo}\n" \
        "spec: {containers: [{name: c}]}\n"
    out = apply_edits(docs(text), [edit(op="add", kind="Pod", name="solo",
                                        namespace="default", path="/spec/priority",
                                        value=5)])
    assert [o.body["spec"].get("priority") for o in out.of("Pod") if o.name == "solo"] == [5]
    with pytest.raises(EditError, match="no Pod in the scenario matches"):
        apply_edits(docs(text), [edit(op="add", kind="Pod", name="solo", namespace="jobs",
                                      path="/spec/priority", value=5)])
