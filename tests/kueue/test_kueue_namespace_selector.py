"""A ClusterQueue's ``namespaceSelector`` in ``kubepreempt kueue`` and ``simulate``.

Upstream: ``workload.ValidateAdmissibility`` (pkg/workload/resources.go) returns
``ErrNamespaceMismatch`` ("workload namespace doesn't match ClusterQueue selector") and
the scheduler leaves the workload inadmissible with ``QuotaReserved=False``, reason
``Misconfigured`` (TestSchedule "failed to match clusterQueue selector").
"""

from __future__ import annotations

from typing import Any

import pytest
from builders.kueue import CURRENT, NOW, V07, cq, docs, flavor, lq, wl

from kubepreempt.kueue.admission import decide, load_inputs
from kubepreempt.kueue.nomination import MISCONFIGURED, NAMESPACE_MISMATCH, nominate
from kubepreempt.kueue.quota import Snapshot, workload_info
from kubepreempt.manifests import load_documents
from kubepreempt.sim.engine import simulate
from kubepreempt.sim.scenario import build_scenario


def _ns(name: str, **labels: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": name, "labels": labels}}


def _eng_alpha() -> dict[str, Any]:
    q = cq("eng-alpha", [("on-demand", {"cpu": "50"})])
    q["spec"]["namespaceSelector"] = {"matchExpressions": [
        {"key": "dep", "operator": "In", "values": ["eng"]}]}
    return q


def _objs() -> list[dict[str, Any]]:
    return [flavor("on-demand"), _eng_alpha(), _ns("sales", dep="sales"),
            _ns("eng-alpha", dep="eng"), lq("blocked", "eng-alpha", namespace="sales"),
            lq("main", "eng-alpha", namespace="eng-alpha"),
            wl("new", {"cpu": "1"}, queue="blocked", namespace="sales"),
            wl("ok", {"cpu": "1"}, queue="main", namespace="eng-alpha")]


@pytest.mark.parametrize("version", [CURRENT, V07])
def test_excluded_namespace_stays_inadmissible(version: str) -> None:
    d = decide(load_inputs(docs(_objs()), version=version), "sales/new", NOW)
    assert d.result == "pending"
    assert d.cluster_queue == "eng-alpha"
    assert d.message == "workload namespace doesn't match ClusterQueue selector"
    assert d.victims == []


def test_selected_namespace_is_admitted() -> None:
    d = decide(load_inputs(docs(_objs()), version=CURRENT), "eng-alpha/ok", NOW)
    assert d.result == "admit"


def test_mismatch_is_misconfigured_before_flavors() -> None:
    inp = load_inputs(docs(_objs()), version=CURRENT)
    snap = Snapshot(inp.cluster_queues.values(), inp.flavors, [], inp.config, inp.cohorts,
                    inp.namespaces)
    wl_ = inp.workloads["sales/new"]
    e = nominate(workload_info(wl_, "eng-alpha"), wl_.pod_sets, snap, inp.flavors, NOW)
    assert (e.assignment, e.message, e.reason) == (None, NAMESPACE_MISMATCH, MISCONFIGURED)


def test_namespace_name_label_needs_no_namespace_object() -> None:
    # The apiserver labels every namespace kubernetes.io/metadata.name=<name>.
    q = cq("q", [("on-demand", {"cpu": "50"})])
    q["spec"]["namespaceSelector"] = {"matchLabels": {"kubernetes.io/metadata.name": "team"}}
    objs = [flavor("on-demand"), q, lq("l", "q", namespace="team"), lq("l", "q"),
            wl("a", {"cpu": "1"}, queue="l", namespace="team"),
            wl("b", {"cpu": "1"}, queue="l")]
    inp = load_inputs(docs(objs), version=CURRENT)
    assert decide(inp, "team/a", NOW).result == "admit"
    assert decide(inp, "default/b", NOW).message == NAMESPACE_MISMATCH


SCENARIO = """
apiVersion: v1
kind: Node
metadata: {name: n}
status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Namespace
metadata: {name: sales, labels: {dep: sales}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {matchLabels: {dep: eng}}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: 4}]}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: q, namespace: sales}
spec: {clusterQueue: cq}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: r
  namespace: sales
  labels: {kueue.x-k8s.io/queue-name: q}
  annotations: {kubepreempt.io/duration: 10s}
spec:
  parallelism: 1
  template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}
"""


def test_simulator_leaves_excluded_namespace_inadmissible(tmp_path) -> None:
    path = tmp_path / "scenario.yaml"
    path.write_text(SCENARIO)
    res = simulate(build_scenario(load_documents([str(path)])))
    events = [(e["type"], e["workload"], e["detail"]) for e in res.metrics["kueue"]["events"]]
    assert events == [("created", "sales/job-r", "queue q"),
                      ("inadmissible", "sales/job-r", NAMESPACE_MISMATCH)]
