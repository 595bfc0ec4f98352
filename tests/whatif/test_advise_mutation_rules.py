"""advise's answers where the mutation run found them untested.

advise only searches over the scheduler's own decisions for a changed cluster (a
priority, a class, a lifted budget, added nodes, a changed pod), so each expected answer
is what kube-scheduler would decide for that changed cluster, worked out from the
upstream rule named in the test; the added nodes must be nodes the apiserver accepts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from builders import cluster_of, docs_of, node, pod, priority_class

from kubepreempt.api.errors import InputError
from kubepreempt.cli import main
from kubepreempt.whatif.advise import (
    advise,
    filter_report,
    nodes_needed,
    parse_shape,
    rejected_by_last_node,
)
from kubepreempt.whatif.place import expand_documents

NOW = 1e9  # 2001-09-09: earlier than every startTime written below
OLD = "2024-01-01T00:00:00Z"


def one_pod(cluster, key: str, **kw):
    target = cluster.find_pod(key)
    return advise(cluster, [(f"Pod/{key}", [target], False)], subject=key, now=NOW, **kw)


def test_every_trial_is_decided_at_the_given_time() -> None:
    """Two 1-CPU nodes, each with one victim of priority 100: ``a`` on n1 started in
    2024, ``b`` on n2 has no startTime. ``pickOneNodeForPreemption`` ties on every
    count and then takes the node whose highest-priority victims started latest; a pod
    without a startTime counts as started now (``GetPodStartTime``). At ``now`` = 2001,
    ``b`` started before ``a``, so n1 is chosen — by the lowest value (101), by the
    lowest class (mid, 500) and with every budget lifted alike."""
    cluster = cluster_of(
        priority_class("low", 100), priority_class("mid", 500),
        node("n1", cpu="1"), node("n2", cpu="1"),
        pod("a", "1", ns="jobs", node_name="n1", priority=100, start=OLD),
        pod("b", "1", ns="jobs", node_name="n2", priority=100),
        pod("new", "1", ns="shop", priority=50))
    a = one_pod(cluster, "shop/new")
    assert (a.priority["lowestValue"], a.priority["node"]) == (101, "n1")
    assert a.priority["victims"] == ["jobs/a"]
    lowest = a.priority["lowestClass"]
    assert (lowest["name"], lowest["node"], lowest["victims"]) == ("mid", "n1", ["jobs/a"])
    assert a.pdbs["withoutAnyPdb"]["node"] == "n1"
    cluster = cluster_of(
        node("n1", cpu="1"), node("n2", cpu="1"),
        pod("a", "1", ns="jobs", node_name="n1", priority=100, start=OLD),
        pod("b", "1", ns="jobs", node_name="n2", priority=100),
        pod("vip", "1", ns="shop", priority=1000))
    vip = one_pod(cluster, "shop/vip")  # as it is, it preempts: the same tie, the same node
    assert (vip.current["node"], vip.current["victims"]) == ("n1", ["jobs/a"])


def test_the_lowest_class_is_tried_with_its_name_and_its_preemption_policy() -> None:
    """The 2-CPU pod needs batch-1 (priority 100) preempted. Class ``never`` (200) has
    ``preemptionPolicy: Never``, so a pod of it may not preempt
    (``PodEligibleToPreemptOthers``); class ``mid`` (500) is refused at creation by a
    ResourceQuota scoped to it (ResourceQuota admission, scope ``PriorityClass In
    [mid]``, hard ``pods: 0``; the pod is new, ``advise -f``, so admission runs). The
    lowest class that places the pod is ``high``."""
    quota = {"apiVersion": "v1", "kind": "ResourceQuota",
             "metadata": {"name": "no-mid", "namespace": "shop"},
             "spec": {"hard": {"pods": "0"}, "scopeSelector": {"matchExpressions": [
                 {"scopeName": "PriorityClass", "operator": "In", "values": ["mid"]}]}}}
    cluster = cluster_of(
        priority_class("never", 200, policy="Never"), priority_class("mid", 500),
        priority_class("high", 1000), quota, node("n1", cpu="3"),
        pod("batch-1", "2", ns="jobs", node_name="n1", priority=100, start=OLD))
    workloads = _workloads(cluster, pod("big", "2", ns="shop", priority=50))
    a = advise(cluster, workloads, subject="big", now=NOW)
    assert a.priority["lowestValue"] == 101
    lowest = a.priority["lowestClass"]
    assert (lowest["name"], lowest["value"], lowest["preemptionPolicy"]) == (
        "high", 1000, "PreemptLowerPriority")
    assert (lowest["result"], lowest["victims"]) == ("preempt", ["jobs/batch-1"])


def test_shape_flags_give_the_node_the_apiserver_would_accept() -> None:
    """``--node-label K=V`` and ``--node-taint K[=V]:Effect`` as a Node's labels and
    taints: a key must be a qualified name and a value a label value (apiserver
    ``ValidateLabels`` / ``validateNodeTaints``), an effect NoSchedule, PreferNoSchedule or
    NoExecute; anything else is refused with the flag's own message. The template is
    named ``shape``; pods defaults to 110."""
    n = parse_shape("cpu=2", ["zone=a", "example.com/disk="],
                    ["dedicated:NoSchedule", "soft=yes:PreferNoSchedule", "x=y:NoExecute"])
    assert n.name == "shape" and n.allocatable == {"cpu": 2000, "pods": 110}
    assert n.labels == {"zone": "a", "example.com/disk": ""}
    assert [(t.key, t.value, t.effect) for t in n.taints] == [
        ("dedicated", "", "NoSchedule"), ("soft", "yes", "PreferNoSchedule"),
        ("x", "y", "NoExecute")]
    for label in ("zone", "=a", "a=b=c", "a:b=c"):
        with pytest.raises(InputError) as err:
            parse_shape("cpu=2", [label])
        assert str(err.value) == f"--node-label: {label!r} is not KEY=VALUE"
    for taint in ("gpu", "gpu=yes", "gpu=yes:Bad", "=yes:NoSchedule", "a=b=c:NoSchedule",
                  "k=a:b:NoSchedule", ":NoSchedule"):
        with pytest.raises(InputError) as err:
            parse_shape("cpu=2", (), [taint])
        assert str(err.value) == f"--node-taint: {taint!r} is not KEY[=VALUE]:EFFECT"
    for shape in ("cpu", "=2", "cpu=2,memory"):
        bad = shape.split(",")[-1]
        with pytest.raises(InputError) as err:
            parse_shape(shape)
        assert str(err.value) == f"--node-shape: {bad!r} is not RESOURCE=QUANTITY"
    for shape in ("cpu=lots", "cpu=1=2"):  # RESOURCE is up to the first "="
        with pytest.raises(InputError) as err:
            parse_shape(shape)
        assert str(err.value).startswith("--node-shape: cpu: quantity ")


def _deployment(replicas: int, cpu: str = "1", **spec: object) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"replicas": replicas,
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"priority": 50, **spec, "containers": [
                                      {"name": "c", "resources": {
                                          "requests": {"cpu": cpu}}}]}}}}


def _workloads(cluster, *docs):
    return [(k, p, o) for k, p, o, _ in expand_documents(cluster, docs_of(*docs))]


def test_added_nodes_carry_the_shape_taints() -> None:
    """Nodes added from a shape tainted ``gpu=yes:NoSchedule`` reject a pod without the
    toleration (TaintToleration), so no number of them helps; a pod tolerating
    ``dedicated`` with operator Equal and an empty value tolerates the value-less taint
    ``dedicated:NoSchedule`` (``ToleratesTaint``: the values are equal), so one added
    node is enough. Added nodes are named after the template (``shape-added-0``)."""
    cluster = cluster_of(node("n1", cpu="1"), pod("busy", "1", node_name="n1", priority=100))
    shape = parse_shape("cpu=2", (), ["gpu=yes:NoSchedule"])
    k, got, why = nodes_needed(cluster, _workloads(cluster, _deployment(1)), shape, NOW)
    assert (k, got) == (None, None)
    assert why == "TaintToleration: node(s) had untolerated taint(s)"
    shape = parse_shape("cpu=2", (), ["dedicated:NoSchedule"])
    tolerating = _deployment(1, tolerations=[
        {"key": "dedicated", "operator": "Equal", "value": "", "effect": "NoSchedule"}])
    k, got, why = nodes_needed(cluster, _workloads(cluster, tolerating), shape, NOW)
    assert (k, why) == (1, None)
    assert [p.node for p in got.placements] == ["shape-added-0"]
    assert [n.name for n in cluster.nodes] == ["n1"]  # the added node is gone again


def test_an_empty_added_node_names_every_reason_it_rejects_the_pod() -> None:
    """A 3-CPU, 4Gi pod against a 1-CPU, 1Gi shape: NodeResourcesFit rejects the empty
    node for both resources (``fitsRequest`` lists every insufficient resource), so more
    such nodes cannot help."""
    cluster = cluster_of(node("n1", cpu="1", memory="1Gi"))
    dep = _deployment(1, cpu="3")
    dep["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["memory"] = "4Gi"
    shape = parse_shape("cpu=1,memory=1Gi")
    k, _, why = nodes_needed(cluster, _workloads(cluster, dep), shape, NOW)
    assert k is None
    assert why == "NodeResourcesFit: Insufficient cpu; Insufficient memory"


def test_a_workload_refused_at_creation_is_not_helped_by_nodes() -> None:
    """A pod of class ``high`` in a namespace whose quota allows none of that class is
    refused at creation (ResourceQuota admission), before any scheduling cycle: no
    number of added nodes places it, and no empty node rejected it."""
    quota = {"apiVersion": "v1", "kind": "ResourceQuota",
             "metadata": {"name": "none", "namespace": "shop"},
             "spec": {"hard": {"pods": "0"}}}
    cluster = cluster_of(node("n1", cpu="1"), quota)
    k, got, why = nodes_needed(cluster, _workloads(cluster, _deployment(1)),
                               parse_shape("cpu=1"), NOW)
    assert (k, got, why) == (None, None, None)


def test_toleration_suggestions_name_only_the_untolerated_hard_taints() -> None:
    """n1 carries ``a:NoSchedule`` (the pod tolerates it), ``p:PreferNoSchedule`` (never
    rejects: TaintToleration's Filter reads only NoSchedule and NoExecute) and
    ``b=x:NoSchedule``: tolerating ``b=x`` alone admits it."""
    cluster = cluster_of(
        node("n1", taints=[{"key": "a", "effect": "NoSchedule"},
                           {"key": "p", "effect": "PreferNoSchedule"},
                           {"key": "b", "value": "x", "effect": "NoSchedule"}]),
        pod("p", "1", ns="shop", spec_extra={"tolerations": [
            {"key": "a", "operator": "Exists", "effect": "NoSchedule"}]}))
    (entry,) = filter_report(cluster, cluster.find_pod("shop/p"), NOW)
    assert (entry["plugin"], entry["nodes"]) == ("TaintToleration", 1)
    assert entry["reasons"] == {"node(s) had untolerated taint(s)": 1}
    assert entry["suggestion"] == {"change": "tolerate b=x:NoSchedule", "admits": 1,
                                   "result": "scheduled", "node": "n1", "victims": []}


def test_dropping_one_anti_affinity_term_keeps_the_next() -> None:
    """Two required anti-affinity terms per hostname: term 0 (app=x) rejects n1, which
    runs an x pod; term 1 (app=y) rejects n2, which runs a y pod (InterPodAffinity's
    Filter, ``satisfyPodAntiAffinity``). Dropping term 0 alone admits n1 only, since
    term 1 still rejects n2."""
    def anti(app: str) -> dict:
        return {"labelSelector": {"matchLabels": {"app": app}},
                "topologyKey": "kubernetes.io/hostname"}
    cluster = cluster_of(
        node("n1"), node("n2"),
        pod("x1", "100m", node_name="n1", labels={"app": "x"}, priority=100),
        pod("y1", "100m", node_name="n2", labels={"app": "y"}, priority=100),
        pod("p", "1", spec_extra={"affinity": {"podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [anti("x"), anti("y")]}}}))
    (entry,) = filter_report(cluster, cluster.find_pod("default/p"), NOW)
    assert (entry["plugin"], entry["nodes"]) == ("InterPodAffinity", 2)
    assert entry["suggestion"]["change"] == ("drop required pod anti-affinity term 0 "
                                             "(topologyKey kubernetes.io/hostname)")
    assert (entry["suggestion"]["admits"], entry["suggestion"]["node"]) == (1, "n1")


def test_json_names_every_answer() -> None:
    """``Advice.to_json`` (the ``advise -o json`` object): its keys in order, the nodes
    search's template and placements, and the first pending pod of the filter
    analysis."""
    cluster = cluster_of(node("n1", cpu="1"), pod("busy", "1", node_name="n1", priority=100))
    a = advise(cluster, _workloads(cluster, pod("api", "1", ns="shop", priority=50)),
               subject="api", node_template=parse_shape("cpu=1"), now=NOW)
    out = a.to_json()
    assert list(out) == ["subject", "pods", "current", "priority", "pdbs", "nodes", "filters"]
    assert (out["subject"], out["pods"]) == ("api", 1)
    assert out["nodes"]["template"] == "shape"
    assert out["nodes"]["placements"] == {"shape-added-0": 1}
    assert out["filters"] == {"pod": "shop/api", "plugins": a.filters}


def test_node_like_names_a_node_of_the_input(tmp_path: Path, capsys) -> None:
    cluster_file = tmp_path / "c.yaml"
    cluster_file.write_text(json.dumps(node("n1", cpu="1")))
    new = tmp_path / "p.yaml"
    new.write_text(json.dumps(pod("api", "1", ns="shop")))
    assert main(["advise", str(cluster_file), "-f", str(new), "--node-like", "n9"]) == 2
    assert "--node-like n9: no such node in the input" in capsys.readouterr().err


def test_rejected_by_last_node_reads_only_the_filters() -> None:
    """The reason an added node rejects a pod is its Filter status, whatever preemption
    could do elsewhere: here n1's low pod could be preempted, and the last node (an
    empty 1-CPU node) still rejects the 2-CPU pod for cpu."""
    cluster = cluster_of(node("n1", cpu="2"), node("x", cpu="1"),
                         pod("low", "2", node_name="n1", priority=1),
                         pod("p", "2", priority=100))
    assert rejected_by_last_node(cluster, cluster.find_pod("default/p")) == (
        "NodeResourcesFit: Insufficient cpu")


def test_no_node_is_needed_when_the_workload_fits() -> None:
    """One 1-CPU replica and a 2-CPU node with room: NodeResourcesFit admits it as the
    cluster is, so no node is added (and the trial that placed it is the answer)."""
    cluster = cluster_of(node("n1", cpu="2"))
    k, got, why = nodes_needed(cluster, _workloads(cluster, _deployment(1)),
                               parse_shape("cpu=1"), NOW)
    assert (k, why) == (0, None)
    assert [p.node for p in got.placements] == ["n1"]


def test_nodes_are_counted_with_preemption_off() -> None:
    """n1 is full with a priority-1 pod that the priority-50 replica could preempt
    (``selectVictimsOnNode``); the node count asks how many nodes let it in without
    preempting anyone, so one node is added."""
    cluster = cluster_of(node("n1", cpu="1"), pod("low", "1", node_name="n1", priority=1))
    k, got, _ = nodes_needed(cluster, _workloads(cluster, _deployment(1)),
                             parse_shape("cpu=1"), NOW)
    assert k == 1
    assert [(p.result, p.node) for p in got.placements] == [("scheduled", "shape-added-0")]


def test_the_search_reaches_its_bound_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sixteen 1-CPU replicas, each needing a 1-CPU node of its own (NodeResourcesFit),
    with the search bounded at 16 added nodes: galloping 1, 2, 4, 8, 16 reaches the
    bound, so sixteen nodes is the answer; with the bound at 15 there is none."""
    import kubepreempt.whatif.advise as advise_module

    cluster = cluster_of(node("n0", cpu="1"), pod("busy", "1", node_name="n0", priority=100))
    workloads = _workloads(cluster, _deployment(16))
    monkeypatch.setattr(advise_module, "MAX_NODES", 16)
    k, got, _ = nodes_needed(cluster, workloads, parse_shape("cpu=1"), NOW)
    assert k == 16 and len({p.node for p in got.placements}) == 16
    monkeypatch.setattr(advise_module, "MAX_NODES", 15)
    assert nodes_needed(cluster, workloads, parse_shape("cpu=1"), NOW)[0] is None


def test_added_nodes_are_fresh_hosts_with_the_template_labels() -> None:
    """Two replicas with required anti-affinity to each other per
    ``kubernetes.io/hostname`` need two hosts (``satisfyPodAntiAffinity``): every added
    node is its own hostname, named after the template, with ``x`` appended while the
    name is taken (here ``shape-added-0`` exists and is full). The template's labels are
    kept: the replicas' nodeSelector ``zone=a`` matches them (NodeAffinity)."""
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "web"}},
         "topologyKey": "kubernetes.io/hostname"}]}}
    cluster = cluster_of(node("shape-added-0", cpu="1"),
                         pod("busy", "1", node_name="shape-added-0", priority=100))
    dep = _deployment(2, affinity=anti, nodeSelector={"zone": "a"})
    k, got, _ = nodes_needed(cluster, _workloads(cluster, dep),
                             parse_shape("cpu=4", ["zone=a"]), NOW)
    assert k == 2
    assert sorted(p.node for p in got.placements) == ["shape-added-0x", "shape-added-1"]


def _tainted(name: str, *taints: tuple[str, str, str]) -> dict:
    return node(name, taints=[{"key": k, "value": v, "effect": e} if v else
                              {"key": k, "effect": e} for k, v, e in taints])


def test_a_suggested_toleration_admits_only_its_own_taint() -> None:
    """The suggested toleration names the taint's key, value and effect (operator Equal
    for a taint with a value): ``ToleratesTaint`` then tolerates ``b=x:NoSchedule`` but
    neither ``b=y:NoSchedule`` (another value) nor ``b=x:NoExecute`` (another effect),
    so it admits n1 alone (n2 and n3 hold one node each too; on a tie the first set
    stays)."""
    cluster = cluster_of(
        _tainted("n1", ("b", "x", "NoSchedule")), _tainted("n2", ("b", "y", "NoSchedule")),
        _tainted("n3", ("b", "x", "NoExecute")), pod("p", "1", ns="shop"))
    (entry,) = filter_report(cluster, cluster.find_pod("shop/p"), NOW)
    assert (entry["plugin"], entry["nodes"]) == ("TaintToleration", 3)
    assert entry["suggestion"]["change"] == "tolerate b=x:NoSchedule"
    assert (entry["suggestion"]["admits"], entry["suggestion"]["node"]) == (1, "n1")


def test_tolerating_two_taints_is_one_change() -> None:
    """The only node carries two taints the pod does not tolerate: both tolerations are
    needed, suggested together."""
    cluster = cluster_of(_tainted("n1", ("a", "", "NoSchedule"), ("b", "x", "NoExecute")),
                         pod("p", "1", ns="shop"))
    (entry,) = filter_report(cluster, cluster.find_pod("shop/p"), NOW)
    assert entry["suggestion"]["change"] == "tolerate a:NoSchedule, b=x:NoExecute"
    assert entry["suggestion"]["node"] == "n1"


def test_node_selector_suggestions_drop_only_the_missing_keys() -> None:
    """nodeSelector ``a, b, c, d, e = 1`` (NodeAffinity: every key must match). n1-n3
    each miss two keys (``a`` and one of ``b, c, d``), n4 misses only ``e``: dropping
    ``e`` is the smallest change and admits n4, although three two-key changes come
    first by name. A second pod whose only node misses ``a`` and ``e`` gets both dropped
    at once."""
    sel = {k: "1" for k in "abcde"}

    def labelled(name: str, missing: str) -> dict:
        return node(name, labels={k: "1" for k in "abcde" if k not in missing})
    cluster = cluster_of(labelled("n1", "ab"), labelled("n2", "ac"), labelled("n3", "ad"),
                         labelled("n4", "e"),
                         pod("p", "1", ns="shop", spec_extra={"nodeSelector": sel}))
    (entry,) = filter_report(cluster, cluster.find_pod("shop/p"), NOW)
    assert (entry["plugin"], entry["nodes"]) == ("NodeAffinity", 4)
    assert entry["suggestion"]["change"] == "drop nodeSelector e"
    assert (entry["suggestion"]["admits"], entry["suggestion"]["node"]) == (1, "n4")
    cluster = cluster_of(labelled("n1", "ae"),
                         pod("p", "1", ns="shop", spec_extra={"nodeSelector": sel}))
    (entry,) = filter_report(cluster, cluster.find_pod("shop/p"), NOW)
    assert entry["suggestion"]["change"] == "drop nodeSelector a, e"


def test_node_selector_suggestions_try_the_most_common_first() -> None:
    """Three nodes miss only ``zone``, one each misses only ``disk``, ``gpu`` or ``rack``:
    dropping ``zone`` admits three nodes and is among the changes tried (each one key)."""
    sel = {"zone": "a", "disk": "ssd", "gpu": "yes", "rack": "r1"}

    def missing(name: str, key: str) -> dict:
        return node(name, labels={k: v for k, v in sel.items() if k != key})
    cluster = cluster_of(missing("d", "disk"), missing("g", "gpu"), missing("r", "rack"),
                         missing("z1", "zone"), missing("z2", "zone"), missing("z3", "zone"),
                         pod("p", "1", ns="shop", spec_extra={"nodeSelector": sel}))
    (entry,) = filter_report(cluster, cluster.find_pod("shop/p"), NOW)
    assert (entry["suggestion"]["change"], entry["suggestion"]["admits"]) == (
        "drop nodeSelector zone", 3)


def test_dropping_the_node_affinity_keeps_the_pod_affinity() -> None:
    """The only node misses the required node affinity (zone) and runs an ``app=x`` pod
    the new pod's required anti-affinity excludes. Dropping the node affinity gets n1
    past NodeAffinity, but InterPodAffinity still rejects it: the pod stays
    unschedulable."""
    cluster = cluster_of(
        node("n1"), pod("x1", "100m", node_name="n1", labels={"app": "x"}, priority=100),
        pod("p", "1", spec_extra={"affinity": {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [
                    {"key": "zone", "operator": "In", "values": ["z1"]}]}]}},
            "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "x"}},
                 "topologyKey": "kubernetes.io/hostname"}]}}}))
    (entry,) = filter_report(cluster, cluster.find_pod("default/p"), NOW)
    assert (entry["plugin"], entry["nodes"]) == ("NodeAffinity", 1)
    suggestion = entry["suggestion"]
    assert suggestion["change"] == "drop the required node affinity"
    assert (suggestion["admits"], suggestion["result"], suggestion["node"]) == (
        1, "unschedulable", None)


def test_max_skew_is_raised_to_the_skew_of_the_rejected_domain() -> None:
    """maxSkew 1 over ``zone``: zone a holds 3 matching pods, zone b 1 (the global
    minimum), and node nx has no zone label. PodTopologySpread rejects a1 with skew
    3 + 1 - 1 = 3 (``existing + self - global minimum``) and nx for the missing label,
    which no maxSkew cures; raising maxSkew to 3 admits a1."""
    spread = [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
               "labelSelector": {"matchLabels": {"app": "s"}}}]
    pods = [pod(f"a{i}", "100m", node_name="a1", labels={"app": "s"}, priority=100)
            for i in range(3)]
    cluster = cluster_of(
        node("a1", labels={"zone": "a"}), node("b1", cpu="1", labels={"zone": "b"}),
        node("nx"), *pods,
        pod("b0", "1", node_name="b1", labels={"app": "s"}, priority=100),
        pod("p", "1", labels={"app": "s"}, spec_extra={"topologySpreadConstraints": spread}))
    report = filter_report(cluster, cluster.find_pod("default/p"), NOW)
    entry = next(e for e in report if e["plugin"] == "PodTopologySpread")
    assert entry["nodes"] == 2
    assert entry["suggestion"]["change"] == (
        "raise maxSkew of the zone constraint from 1 to 3")
    assert (entry["suggestion"]["admits"], entry["suggestion"]["node"]) == (1, "a1")


def _spread(*constraints: tuple[str, int]) -> list[dict]:
    return [{"maxSkew": skew, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchLabels": {"app": "s"}}} for key, skew in constraints]


def _zones_a3_b1(*constraints: tuple[str, int]):
    """a1 (zone a) holds 3 ``app=s`` pods, b1 (zone b, full) 1: PodTopologySpread
    rejects a1 only (b1 fails NodeResourcesFit first)."""
    return cluster_of(
        node("a1", labels={"zone": "a"}), node("b1", cpu="1", labels={"zone": "b"}),
        *(pod(f"a{i}", "100m", node_name="a1", labels={"app": "s"}, priority=100)
          for i in range(3)),
        pod("b0", "1", node_name="b1", labels={"app": "s"}, priority=100),
        pod("p", "1", labels={"app": "s"},
            spec_extra={"topologySpreadConstraints": _spread(*constraints)}))


def test_only_the_constraints_that_reject_are_raised() -> None:
    """Over ``zone`` (maxSkew 1) a1's skew is 3 + 1 - 1 = 3; over hostname (maxSkew 5)
    it is 3 + 1 - 1 = 3, within bounds. Only the zone constraint is raised; applying
    the change keeps the hostname constraint as it was, and a1 is admitted."""
    cluster = _zones_a3_b1(("zone", 1), ("kubernetes.io/hostname", 5))
    report = filter_report(cluster, cluster.find_pod("default/p"), NOW)
    entry = next(e for e in report if e["plugin"] == "PodTopologySpread")
    assert entry["suggestion"]["change"] == "raise maxSkew of the zone constraint from 1 to 3"
    assert (entry["suggestion"]["admits"], entry["suggestion"]["node"]) == (1, "a1")


def test_raising_two_constraints_is_one_change() -> None:
    """Both constraints at maxSkew 1 reject a1 (skew 3 over zone and over hostname):
    both are raised to 3 together."""
    cluster = _zones_a3_b1(("zone", 1), ("kubernetes.io/hostname", 1))
    report = filter_report(cluster, cluster.find_pod("default/p"), NOW)
    entry = next(e for e in report if e["plugin"] == "PodTopologySpread")
    assert entry["suggestion"]["change"] == (
        "raise maxSkew of the zone constraint from 1 to 3; raise maxSkew of the "
        "kubernetes.io/hostname constraint from 1 to 3")
    assert entry["suggestion"]["node"] == "a1"


def test_a_required_pod_affinity_term_can_be_dropped() -> None:
    """Required affinity to ``app=db`` pods per hostname, and no such pod runs (nor does
    the pod match its own term): InterPodAffinity rejects both nodes
    (``satisfyPodAffinity``); dropping the term admits both."""
    cluster = cluster_of(node("n1"), node("n2"), pod("p", "1", spec_extra={"affinity": {
        "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "db"}},
             "topologyKey": "kubernetes.io/hostname"}]}}}))
    (entry,) = filter_report(cluster, cluster.find_pod("default/p"), NOW)
    assert (entry["plugin"], entry["nodes"]) == ("InterPodAffinity", 2)
    assert entry["suggestion"]["change"] == (
        "drop required pod affinity term 0 (topologyKey kubernetes.io/hostname)")
    assert entry["suggestion"]["admits"] == 2


def test_a_larger_change_for_one_plugin_does_not_end_the_others() -> None:
    """n1 has taint ``a`` (one toleration admits it), n2 taints ``b`` and ``c`` (two),
    n3 lacks both selector keys (two keys dropped). The two-toleration change is not
    tried once one toleration admits a node, and NodeAffinity still gets its own
    two-key suggestion."""
    sel = {"disk": "ssd", "zone": "z1"}
    cluster = cluster_of(
        node("n1", labels=sel, taints=[{"key": "a", "effect": "NoSchedule"}]),
        node("n2", labels=sel, taints=[{"key": "b", "effect": "NoSchedule"},
                                       {"key": "c", "effect": "NoSchedule"}]),
        node("n3"), pod("p", "1", ns="shop", spec_extra={"nodeSelector": sel}))
    report = {e["plugin"]: e for e in filter_report(cluster, cluster.find_pod("shop/p"), NOW)}
    assert report["TaintToleration"]["suggestion"]["change"] == "tolerate a:NoSchedule"
    assert report["NodeAffinity"]["suggestion"]["change"] == "drop nodeSelector disk, zone"


def test_a_suggestion_is_decided_at_the_given_time() -> None:
    """No node has ``zone=a``; dropping the selector lets the priority-100 pod preempt
    on the two full nodes, tied on every count until the victims' start times
    (``pickOneNodeForPreemption``): ``b`` has none and counts as started now (2001), so
    n1's victim ``a`` (2024) started later and n1 is chosen."""
    cluster = cluster_of(
        node("n1", cpu="1"), node("n2", cpu="1"),
        pod("a", "1", node_name="n1", priority=1, start=OLD),
        pod("b", "1", node_name="n2", priority=1),
        pod("p", "1", priority=100, spec_extra={"nodeSelector": {"zone": "a"}}))
    (entry,) = filter_report(cluster, cluster.find_pod("default/p"), NOW)
    suggestion = entry["suggestion"]
    assert suggestion["change"] == "drop nodeSelector zone"
    assert (suggestion["result"], suggestion["node"], suggestion["victims"]) == (
        "preempt", "n1", ["default/a"])


def _two_full_nodes(*extra: dict):
    """n1 and n2 (1 CPU each) full with one priority-100 victim: ``a`` on n1 started in
    2024 and guarded by ``guard`` (no disruption allowed), ``b`` on n2 without a
    startTime."""
    return cluster_of(
        priority_class("low", 100), priority_class("mid", 500),
        node("n1", cpu="1"), node("n2", cpu="1"),
        pod("a", "1", ns="jobs", node_name="n1", priority=100, start=OLD,
            labels={"app": "guarded"}),
        pod("b", "1", ns="jobs", node_name="n2", priority=100),
        {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
         "metadata": {"name": "guard", "namespace": "jobs"},
         "spec": {"selector": {"matchLabels": {"app": "guarded"}}},
         "status": {"disruptionsAllowed": 0}}, *extra)


def test_budgets_are_lifted_at_the_given_time_and_priority() -> None:
    """The budget steers the pod to n2 (``pickOneNodeForPreemption`` first minimises PDB
    violations), as it is (priority 1000) and at the lowest value (101). Lifted, the
    nodes tie until the victims' start times, and ``b`` (no startTime) counts as started
    now (2001), before ``a``: n1 is chosen, so the budget blocks. Each trial without it
    runs at the lowest value found: at the pod's own priority 50 it could preempt
    nothing."""
    cluster = _two_full_nodes(pod("vip", "1", ns="shop", priority=1000),
                              pod("new", "1", ns="shop", priority=50))
    vip = one_pod(cluster, "shop/vip")
    assert (vip.current["node"], vip.current["victims"]) == ("n2", ["jobs/b"])
    a = one_pod(cluster, "shop/new")
    assert (a.priority["lowestValue"], a.priority["node"]) == (101, "n2")
    assert [b["pdb"] for b in a.pdbs["blocking"]] == ["jobs/guard"]
    without = a.pdbs["blocking"][0]["withoutIt"]
    assert (without["result"], without["node"], without["victims"]) == (
        "preempt", "n1", ["jobs/a"])
    assert a.pdbs["withoutAnyPdb"]["node"] == "n1"
    assert a.pdbs["violated"] == []


def test_a_budget_with_room_is_relevant_but_not_blocking() -> None:
    """The only victim's budget allows one disruption: preempting it violates nothing
    (``filterPodsWithPDBViolation``), and lifting the budget changes nothing, so it is
    not reported as blocking, at the lowest value (101) the trials run at."""
    cluster = cluster_of(
        node("n1", cpu="1"),
        pod("a", "1", ns="jobs", node_name="n1", priority=100, labels={"app": "x"}),
        {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
         "metadata": {"name": "roomy", "namespace": "jobs"},
         "spec": {"selector": {"matchLabels": {"app": "x"}}},
         "status": {"disruptionsAllowed": 1}},
        pod("new", "1", ns="shop", priority=50))
    a = one_pod(cluster, "shop/new")
    assert (a.priority["lowestValue"], a.priority["victims"]) == (101, ["jobs/a"])
    assert a.pdbs["violated"] == [] and a.pdbs["blocking"] == []


def test_nothing_to_advise_on() -> None:
    cluster = cluster_of(node("n1"))
    with pytest.raises(InputError) as err:
        advise(cluster, [("Deployment/shop/web", [], False)], subject="web", now=NOW)
    assert str(err.value) == "web: nothing to advise on (no pods)"


def test_the_highest_user_priority_is_a_candidate() -> None:
    """The only victim has priority 999,999,999; preempting it needs a strictly higher
    priority (``selectVictimsOnNode``), and the highest a user PriorityClass may have
    is 1,000,000,000: that is the lowest value. The lowest class at or above it is the
    built-in ``system-cluster-critical`` (2,000,000,000). With a quota refusing pods of
    both built-in classes in the namespace (the pod is new, so admission runs), no
    class places it."""
    objs = (node("n1", cpu="1"), pod("old", "1", node_name="n1", priority=999_999_999))
    cluster = cluster_of(*objs, pod("new", "1", ns="shop", priority=50))
    a = one_pod(cluster, "shop/new")
    assert (a.priority["lowestValue"], a.priority["victims"]) == (1_000_000_000,
                                                                 ["default/old"])
    assert (a.priority["lowestClass"]["name"], a.priority["lowestClass"]["value"]) == (
        "system-cluster-critical", 2_000_000_000)
    quota = {"apiVersion": "v1", "kind": "ResourceQuota",
             "metadata": {"name": "no-critical", "namespace": "shop"},
             "spec": {"hard": {"pods": "0"}, "scopeSelector": {"matchExpressions": [
                 {"scopeName": "PriorityClass", "operator": "In",
                  "values": ["system-cluster-critical", "system-node-critical"]}]}}}
    cluster = cluster_of(*objs, quota)
    a = advise(cluster, _workloads(cluster, pod("new", "1", ns="shop", priority=50)),
               subject="new", now=NOW)
    assert a.priority["lowestValue"] == 1_000_000_000
    assert a.priority["lowestClass"] is None


def test_no_priority_places_a_pod_too_big_for_every_node() -> None:
    cluster = cluster_of(priority_class("low", 100), node("n1", cpu="1"),
                         pod("huge", "8", ns="shop", priority=50))
    a = one_pod(cluster, "shop/huge")
    assert a.priority == {"lowestValue": None, "lowestClass": None}


def test_budgets_violated_at_the_lowest_value_are_reported() -> None:
    """As it is (priority 50) the pod preempts nothing; at the lowest value (101) it
    preempts ``a``, whose budget allows no disruption (the only candidate, so
    ``pickOneNodeForPreemption`` takes it with one violation): that budget is
    violated. A budget of another namespace selecting the same labels does not cover
    it (a PodDisruptionBudget selects pods of its own namespace)."""
    def budget(ns: str) -> dict:
        return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                "metadata": {"name": "tight", "namespace": ns},
                "spec": {"selector": {"matchLabels": {"app": "x"}}},
                "status": {"disruptionsAllowed": 0}}
    cluster = cluster_of(
        node("n1", cpu="1"),
        pod("a", "1", ns="jobs", node_name="n1", priority=100, labels={"app": "x"}),
        budget("jobs"), budget("other"), pod("new", "1", ns="shop", priority=50))
    a = one_pod(cluster, "shop/new")
    assert (a.current["result"], a.current["victims"]) == ("unschedulable", [])
    assert (a.priority["pdbViolations"], a.pdbs["violated"]) == (1, ["jobs/tight"])


def test_the_nodes_answer_names_its_search() -> None:
    cluster = cluster_of(node("n1", cpu="1"), pod("busy", "1", node_name="n1", priority=100))
    a = advise(cluster, _workloads(cluster, pod("api", "1", ns="shop", priority=50)),
               subject="api", node_template=parse_shape("cpu=1,memory=1Gi"), now=NOW)
    assert a.nodes == {"template": "shape",
                       "allocatable": {"cpu": 1000, "memory": 2**30, "pods": 110},
                       "needed": 1, "searchedUpTo": 4096, "rejectedBy": None,
                       "placements": {"shape-added-0": 1}}


def test_the_filter_analysis_is_decided_at_the_given_time() -> None:
    """``test_a_suggestion_is_decided_at_the_given_time`` through ``advise``: the
    analysis of the pending pod runs at the time advise was given."""
    cluster = cluster_of(
        node("n1", cpu="1"), node("n2", cpu="1"),
        pod("a", "1", node_name="n1", priority=1, start=OLD),
        pod("b", "1", node_name="n2", priority=1),
        pod("p", "1", priority=100, spec_extra={"nodeSelector": {"zone": "a"}}))
    a = one_pod(cluster, "default/p")
    assert a.filters_pod == "default/p"
    (entry,) = a.filters
    assert (entry["suggestion"]["node"], entry["suggestion"]["victims"]) == (
        "n1", ["default/a"])


def test_the_filter_analysis_is_of_the_pod_left_pending() -> None:
    """``a`` (priority 100) preempts ``v`` (priority 10, 2 CPUs) on n1 and is nominated
    there. ``b`` (priority 5) cannot preempt ``v`` and finds n1 held by the terminating
    victim and the nominee (``addNominatedPods``): its cycle fails, but it binds to the
    CPU left once the victim has gone. ``c`` (nodeSelector ``zone=nowhere``) is the pod
    left pending, so the filter table is its own: NodeAffinity rejects n1."""
    cluster = cluster_of(node("n1", cpu="2"), pod("v", "2", node_name="n1", priority=10))
    news = [pod("a", "1", ns="shop", priority=100), pod("b", "1", ns="shop", priority=5),
            pod("c", "1", ns="shop", priority=1,
                spec_extra={"nodeSelector": {"zone": "nowhere"}})]
    a = advise(cluster, _workloads(cluster, *news), subject="new", now=NOW)
    assert a.current["pending"] == 1  # c alone: b was bound once v had left
    assert a.filters_pod == "shop/c"
    assert [(f["plugin"], f["nodes"]) for f in a.filters] == [("NodeAffinity", 1)]


def test_nodes_are_counted_with_quota_admission_at_the_given_time() -> None:
    """``old`` was deleted on 2024-01-01 with a 30 s grace period; at ``now`` (2001) it
    is still charged to the namespace's quota of one pod (the quota's pod evaluator stops
    charging a terminating pod only once ``deletionTimestamp + deletionGracePeriodSeconds``
    has passed). So the new pod is refused at creation in every trial, however many
    nodes are added."""
    quota = {"apiVersion": "v1", "kind": "ResourceQuota",
             "metadata": {"name": "one", "namespace": "shop"}, "spec": {"hard": {"pods": "1"}}}
    cluster = cluster_of(
        node("n1", cpu="4"), quota,
        pod("old", "1", ns="shop", node_name="n1", priority=100,
            meta_extra={"deletionTimestamp": OLD, "deletionGracePeriodSeconds": 30}))
    a = advise(cluster, _workloads(cluster, pod("api", "1", ns="shop", priority=50)),
               subject="api", node_template=parse_shape("cpu=1"), now=NOW)
    assert (a.current["result"], a.current["rejected"]) == ("rejected", 1)
    assert (a.nodes["needed"], a.nodes["rejectedBy"]) == (None, None)


def test_the_filter_analysis_replays_the_trial_at_the_given_time() -> None:
    """As above, ``x`` is refused by the quota at ``now``; ``y`` (another namespace, lower
    priority) requires a pod ``app=x`` of ``shop`` on its host (``satisfyPodAffinity``)
    and, with ``x`` refused, none runs: y is the pod left pending, and the analysis,
    replayed at the same time, finds InterPodAffinity rejecting both nodes."""
    quota = {"apiVersion": "v1", "kind": "ResourceQuota",
             "metadata": {"name": "one", "namespace": "shop"}, "spec": {"hard": {"pods": "1"}}}
    cluster = cluster_of(
        node("n1", cpu="4"), node("n2", cpu="4"), quota,
        pod("old", "1", ns="shop", node_name="n1", priority=100,
            meta_extra={"deletionTimestamp": OLD, "deletionGracePeriodSeconds": 30}))
    x = pod("x", "1", ns="shop", priority=100, labels={"app": "x"})
    y = pod("y", "1", ns="other", priority=50, spec_extra={"affinity": {"podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "x"}}, "namespaces": ["shop"],
             "topologyKey": "kubernetes.io/hostname"}]}}})
    a = advise(cluster, _workloads(cluster, x, y), subject="new", now=NOW)
    assert a.filters_pod == "other/y"
    assert [(f["plugin"], f["nodes"]) for f in a.filters] == [("InterPodAffinity", 2)]


def _zone_and_rack_spread(on_x2: int, x2_cpu: str) -> dict:
    """PodTopologySpread's filter-report entry for pod ``p`` (``app=s``) spread over
    ``zone`` (maxSkew 1) and ``rack`` (maxSkew 3): ``on_x2`` ``app=s`` pods on the full
    node x2 (zone zA, rack rD, ``x2_cpu``), 3 on y (zB, rB); racks rA (node x) and rC (the
    full node f1) hold none."""
    def labelled(name: str, zone: str, rack: str, cpu: str = "4") -> dict:
        return node(name, cpu=cpu, labels={"zone": zone, "rack": rack})
    spread = _spread(("zone", 1), ("rack", 3))
    cluster = cluster_of(
        labelled("x", "zA", "rA"), labelled("x2", "zA", "rD", cpu=x2_cpu),
        labelled("y", "zB", "rB"), labelled("f1", "zB", "rC", cpu="1"),
        *(pod(f"s{i}", "100m", node_name="x2", labels={"app": "s"}, priority=100)
          for i in range(on_x2)),
        *(pod(f"t{i}", "100m", node_name="y", labels={"app": "s"}, priority=100)
          for i in range(3)),
        pod("other", "1", node_name="f1", priority=100),
        pod("p", "1", labels={"app": "s"}, spec_extra={"topologySpreadConstraints": spread}))
    report = {e["plugin"]: e for e in filter_report(cluster, cluster.find_pod("default/p"), NOW)}
    return report["PodTopologySpread"]


def test_the_smallest_raise_wins_across_constraints_of_different_max_skew() -> None:
    """Constraints over ``zone`` (maxSkew 1) and ``rack`` (maxSkew 3), ``app=s`` pods:
    zone zA holds 5 (all on the full node x2, rack rD), zone zB 3 (all on y, rack rB);
    racks rA (node x) and rC (the full node f1) hold none. PodTopologySpread rejects x
    for the zone (skew 0 + 5 + 1 - 3 = 3, rack skew 1) and y for the rack (skew
    3 + 1 - 0 = 4, zone skew 1). Raising the rack constraint by one (to 4) is smaller
    than raising the zone one by two (to 3): it is the suggestion, and it admits y."""
    entry = _zone_and_rack_spread(5, "500m")
    assert entry["nodes"] == 2
    assert entry["suggestion"]["change"] == "raise maxSkew of the rack constraint from 3 to 4"
    assert (entry["suggestion"]["admits"], entry["suggestion"]["node"]) == (1, "y")


def test_of_two_equal_raises_the_first_rejected_node_s_is_kept() -> None:
    """As above with four pods on x2: x's zone skew is 0 + 4 + 1 - 3 = 2 (raise the zone
    constraint by one) and y's rack skew 4 (raise the rack constraint by one). Both
    changes are one step and admit one node; the one for x, the first node rejected, is
    kept."""
    entry = _zone_and_rack_spread(4, "400m")
    assert entry["nodes"] == 2
    assert entry["suggestion"]["change"] == "raise maxSkew of the zone constraint from 1 to 2"
    assert (entry["suggestion"]["admits"], entry["suggestion"]["node"]) == (1, "x")
