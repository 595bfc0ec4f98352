"""Loading-path speedups change no decision and no error: cases found in review.

Each case pins what the loader did before the caches, lazy pods and one-pass duplicate
check, i.e. what the apiserver-faithful rules say, on inputs where a shortcut could
answer differently.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from builders import cluster_of, node, pod

import kubepreempt
from kubepreempt.api.errors import InputError, Source
from kubepreempt.api.object_validation import pod_errors, validate_pod
from kubepreempt.api.objects import LazyPod, parse_node, parse_pod
from kubepreempt.api.priority import PriorityResolver
from kubepreempt.api.quantity import resource_list
from kubepreempt.loader import build_cluster
from kubepreempt.manifests import load_documents
from kubepreempt.scheduler.preemption.fast import PreemptionIndex
from kubepreempt.sweep.edits import Edit, apply_edits

NODE = ("kind: Node\nmetadata: {name: node-a}\n"
        "status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n")


def _write(tmp_path: Path, *docs: str) -> str:
    path = tmp_path / "in.yaml"
    path.write_text("---\n".join(docs))
    return str(path)


# ---- duplicates are reported after every object is validated, kind by kind ------------

def test_an_invalid_object_is_reported_before_an_earlier_duplicate(tmp_path: Path) -> None:
    # Objects are validated as read, duplicates checked once all are read (kubectl-like
    # whole-input checks come after per-object validation): the invalid pod wins.
    path = _write(tmp_path, NODE, NODE,
                  "kind: Pod\nmetadata: {name: p, labels: {'a b': c}}\nspec: {}\n")
    with pytest.raises(InputError, match=r"document 3: Pod default/p: Pod \"p\" is invalid"):
        load_documents([path])


def test_duplicates_are_reported_kind_by_kind_in_order_of_first_appearance(
        tmp_path: Path) -> None:
    pod = "kind: Pod\nmetadata: {name: p}\nspec: {}\n"
    path = _write(tmp_path, pod, NODE, NODE, pod)
    with pytest.raises(InputError, match=r"document 4: Pod p: duplicate object "
                                         r"\(first defined at .*document 1\)"):
        load_documents([path])


# ---- content caches must not treat equal-comparing values of other types as seen ------

def test_resource_list_refuses_a_boolean_quantity_even_after_the_number_1() -> None:
    assert resource_list({"cpu": 1}, "x") == {"cpu": 1000}
    with pytest.raises(ValueError, match="quantities must be strings or numbers"):
        resource_list({"cpu": True}, "x")  # True == 1 and hashes alike


def test_a_boolean_toleration_seconds_is_refused_after_a_valid_integer_one() -> None:
    def pod(seconds: object) -> dict:
        return {"kind": "Pod", "metadata": {"name": "p", "namespace": "ns"},
                "spec": {"tolerations": [{"key": "k", "operator": "Exists",
                                          "effect": "NoExecute",
                                          "tolerationSeconds": seconds}]}}
    assert validate_pod(pod(1)) == []
    errors = validate_pod(pod(True))
    assert errors and errors == pod_errors(pod(True))
    assert "spec.tolerations[0].tolerationSeconds" in str(errors[0])


# ---- only validated, unchanged bodies become lazy pods -----------------------------------

RUNTIME_CLASS = ("apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: gvisor}\n"
                 "handler: runsc\nscheduling:\n"
                 "  tolerations: [{key: sandbox, operator: Bogus, effect: NoSchedule}]\n")


def test_a_runtime_class_toleration_a_bound_pod_cannot_read_fails_the_load(
        tmp_path: Path) -> None:
    # RuntimeClass admission merges the class's tolerations into the pod after pod
    # validation: the merged list was never validated, so it is parsed at load time.
    pod = ("kind: Pod\nmetadata: {name: sandboxed}\nspec: {nodeName: node-a, "
           "runtimeClassName: gvisor, containers: []}\n")
    docs = load_documents([_write(tmp_path, RUNTIME_CLASS, NODE, pod)])
    with pytest.raises(InputError, match="Pod default/sandboxed: toleration operator 'Bogus'"):
        build_cluster(docs)


def test_a_bound_pod_edited_by_a_sweep_is_parsed_at_load_time(tmp_path: Path) -> None:
    # Sweep edits patch loaded objects without apiserver validation: an unreadable value
    # must fail the build, not a later read (or never, when nothing reads the field).
    pod = "kind: Pod\nmetadata: {name: p, namespace: ns}\nspec: {nodeName: node-a}\n"
    docs = load_documents([_write(tmp_path, NODE, pod)])
    assert type(build_cluster(docs).pods["ns/p"]) is LazyPod  # validated: lazy
    edited = apply_edits(docs, [Edit("add", "Pod", "p", "ns", "/metadata/labels", "oops")])
    with pytest.raises(InputError, match="ns/p: metadata.labels must be a mapping"):
        build_cluster(edited)


# ---- the preemption index follows appended and popped nodes -----------------------------

def _index_rows(index) -> tuple:
    n = len(index.cluster.nodes)
    return ([[p.key for p in pods] for pods in index.pods], index.count.tolist(),
            index.prio[:n].tolist(), index.start[:n].tolist(), index.req[:n].tolist(),
            index.pdb_hit.tolist(), index.cluster.name_rank.tolist())


def test_preemption_index_after_appended_and_popped_nodes_equals_a_fresh_one() -> None:
    cluster = cluster_of(node("n-b"), node("n-d"),
                         pod("low", "1", node_name="n-b", priority=1),
                         pod("high", "2", node_name="n-d", priority=9))
    PreemptionIndex.of(cluster)  # built for two nodes
    for name in ("n-c", "n-a"):  # appended: rows added, the snapshot's names re-ranked
        cluster.add_node(parse_node(node(name), Source()))
    cluster.bind(parse_pod(pod("mid", "1", node_name="n-a", priority=5), Source("t.yaml"),
                           PriorityResolver([]).resolve), "n-a")
    grown = PreemptionIndex.of(cluster)
    assert _index_rows(grown) == _index_rows(PreemptionIndex(cluster))
    assert grown.pods[3][0].key == "default/mid"
    cluster.remove(cluster.pods["default/mid"])
    cluster.pop_nodes(2)
    cluster.add_node(parse_node(node("n-a"), Source()))  # same length as before the pop
    again = PreemptionIndex.of(cluster)
    assert _index_rows(again) == _index_rows(PreemptionIndex(cluster))
    assert cluster.name_rank.tolist() == [1, 2, 0]



# ---- the package's lazy attributes ------------------------------------------------------

def test_the_package_still_offers_its_names_and_submodules_after_a_bare_import() -> None:
    # Before the lazy attributes, `import kubepreempt` imported the engine, so its
    # submodules were attributes and dir() listed the re-exported names.
    code = ("import kubepreempt as k; print(sorted(set(k.__all__) - set(dir(k)))); "
            "print(k.cluster.build_cluster.__name__, k.manifests.load_documents.__name__)")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout.splitlines()
    assert out == ["[]", "build_cluster load_documents"]
    with pytest.raises(AttributeError, match="no attribute 'no_such_thing'"):
        _ = kubepreempt.no_such_thing  # type: ignore[attr-defined]


def test_parse_quantity_refuses_a_boolean_after_parsing_the_number_1_0() -> None:
    from kubepreempt.api.quantity import QuantityError, parse_quantity

    assert parse_quantity(1.0) == 1
    with pytest.raises(QuantityError, match="not True"):
        parse_quantity(True)  # an untyped memo keys both as [value]: [1.0] == [True]
