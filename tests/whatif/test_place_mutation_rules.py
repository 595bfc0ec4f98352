"""``schedule -f`` placement answers where the mutation run found them untested.

Each expected answer is worked out from the upstream rule the test names: kube-scheduler's
queue (``PrioritySort``: priority, then the time the pod entered the queue), its
scheduling cycle (``schedulingCycle``: ``skipPodSchedule`` for a pod being deleted or of
another scheduler, PostFilter's DefaultPreemption, which only deletes its victims,
``prepareCandidate``), the scheduler cache keeping a terminating pod until it is gone,
and the workload controllers' creation order (``StatefulSetControl``'s OrderedReady
waits for the previous ordinal to be Running and Ready).
"""

from __future__ import annotations

from builders import cluster_of, docs_of, node, pod, priority_class

from kubepreempt.whatif.place import owner_of, what_if

NOW = 1e9
OLD = "2024-01-01T00:00:00Z"
CLASSES = (priority_class("low", 100), priority_class("high", 1000))


def _deployment(name: str, replicas: int, cpu: str, priority: int) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"priority": priority, "containers": [
                                      {"name": "c", "image": "x:1",
                                       "resources": {"requests": {"cpu": cpu}}}]}}}}


def _statefulset(name: str, replicas: int, cpu: str, priority: int) -> dict:
    return {"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": replicas, "serviceName": name,
                     "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"priority": priority, "containers": [
                                      {"name": "c", "image": "x:1",
                                       "resources": {"requests": {"cpu": cpu}}}]}}}}


def _mixed():
    """n1 (5 CPU) runs ``agent`` (priority 2000, 1 CPU) and ``batch`` (class low, 3 CPU,
    30 s grace): 1 CPU free. New: bare pods ``late-1``, ``late-2`` (priority 500,
    ``preemptionPolicy: Never``, 1 CPU each), ``other`` (another scheduler), ``gone``
    (already being deleted); Deployment ``web`` (2 x 1 CPU, priority 1000); StatefulSet
    ``db`` (2 x 1 CPU, priority 50, OrderedReady)."""
    cluster = cluster_of(
        *CLASSES, node("n1", cpu="5"),
        pod("agent", "1", ns="kube-system", node_name="n1", priority=2000, start=OLD),
        pod("batch", "3", node_name="n1", start=OLD,
            spec_extra={"priorityClassName": "low", "terminationGracePeriodSeconds": 30}))
    never = {"preemptionPolicy": "Never"}
    docs = docs_of(
        pod("late-1", "1", priority=500, spec_extra=never),
        pod("late-2", "1", priority=500, spec_extra=never),
        pod("other", "1", spec_extra={"schedulerName": "custom"}),
        pod("gone", "1", meta_extra={"deletionTimestamp": OLD, "finalizers": ["x/y"]}),
        _deployment("web", 2, "1", 1000), _statefulset("db", 2, "1", 50))
    return cluster, docs


def test_each_pod_s_answer_after_the_victims_leave() -> None:
    """Queue order: web's two pods (1000), late-1, late-2 (500), db-0 (50), then other
    and gone (0; bare pods were created first). web's first pod takes the free CPU; the
    second preempts batch (the only lower-priority pod) and is nominated to n1; late-1
    and late-2 may not preempt and see n1 full (batch terminating, web's second pod
    nominated): unschedulable; db-0 too (nothing below 50 to preempt), so db-1 is never
    created. ``other`` belongs to another scheduler and ``gone`` is being deleted:
    ``skipPodSchedule``. When batch is gone (30 s later) web's second pod binds to its
    node, then late-1 and late-2 fill n1 (5 CPU); db-0 stays pending."""
    cluster, docs = _mixed()
    result = what_if(cluster, docs, now=NOW)
    got = [(p.pod.name, p.result, p.bound_node) for p in result.placements]
    assert [r for _, r, _ in got[:2]] == ["scheduled", "preempt"]
    assert [b for _, _, b in got[:2]] == [None, "n1"]  # the scheduled one bound at once
    assert got[2:4] == [("late-1", "unschedulable", "n1"), ("late-2", "unschedulable", "n1")]
    assert {got[0][0], got[1][0]} == {p.name for p in cluster.pods.values()
                                      if p.labels.get("app") == "web"}
    assert got[4:] == [("db-0", "unschedulable", None), ("other", "ignored", None),
                       ("gone", "skipped", None), ("db-1", "not-created", None)]
    s = result.summary()
    assert {k: s[k] for k in ("pods", "scheduled", "preempting", "boundAfterPreemption",
                              "pending", "boundAfterWaiting", "ignored", "notCreated",
                              "rejected", "victims")} == {
        "pods": 8, "scheduled": 1, "preempting": 1, "boundAfterPreemption": 1,
        "pending": 1, "boundAfterWaiting": 2, "ignored": 2, "notCreated": 1,
        "rejected": 0, "victims": 1}
    assert s["victimsByOwner"] == {"Pod/default/batch": 1}
    # late-2 has late-1's spec but is another workload: its own cycle decided it
    assert result.placements[3].answered_by is None
    assert result.placements[3].workload == "Pod/default/late-2"
    # bound once batch left: started then (the newest pods for later preemptions)
    late = cluster.find_pod("default/late-1")
    assert (late.node_name, late.start_time) == ("n1", NOW + 30)


def test_the_json_entry_of_each_kind_of_answer() -> None:
    """The ``pods`` entries of ``-o json``: a pod never created has no decision (only its
    key, result, no node, no victims, its workload, priority and why); a pod that
    waited names the node it bound to and when; a preemptor names its victims, its
    node, and the node it bound to; a scheduled pod has no ``boundTo``. Without
    ``--explain`` no per-node statuses are given."""
    cluster, docs = _mixed()
    out = what_if(cluster, docs, now=NOW).to_json()
    entries = {p["pod"]: p for p in out["pods"]}
    assert entries["default/db-1"] == {
        "pod": "default/db-1", "result": "not-created", "node": None, "victims": [],
        "workload": "StatefulSet/default/db", "priority": 50,
        "message": "not created: OrderedReady waits for db-0 to be Running and Ready"}
    late = entries["default/late-1"]
    assert (late["result"], late["boundTo"], late["priority"]) == ("unschedulable", "n1", 500)
    assert late["message"] == "waited for preemption victims to leave; bound to n1 after 30s"
    assert "nodes" not in late
    assert "nodes" not in explained_entry("default/late-1")
    web = [p for p in out["pods"] if p["workload"] == "Deployment/default/web"]
    assert "boundTo" not in web[0] and web[0]["result"] == "scheduled"
    assert {k: web[1][k] for k in ("result", "node", "victims", "pdbViolations",
                                   "clearedNominations", "boundTo")} == {
        "result": "preempt", "node": "n1", "victims": ["default/batch"],
        "pdbViolations": 0, "clearedNominations": [], "boundTo": "n1"}


def explained_entry(key: str) -> dict:
    """A placement decided with explain, as its own ``to_json()`` gives it by default
    (without the per-node statuses)."""
    cluster, docs = _mixed()
    result = what_if(cluster, docs, now=NOW, explain=True)
    return next(p for p in result.placements if p.pod.key == key).to_json()


def test_explain_keeps_every_node_s_status() -> None:
    """With ``--explain`` each decided pod's entry carries the per-node Filter statuses:
    late-1 was rejected on n1 for cpu (NodeResourcesFit)."""
    cluster, docs = _mixed()
    result = what_if(cluster, docs, now=NOW, explain=True)
    late = next(p for p in result.to_json(True)["pods"] if p["pod"] == "default/late-1")
    assert late["nodes"]["n1"]["plugin"] == "NodeResourcesFit"
    late = next(p for p in result.to_json()["pods"] if p["pod"] == "default/late-1")
    assert "nodes" not in late


def _owned(*refs: dict, hash_label: str | None = None):
    labels = {"pod-template-hash": hash_label} if hash_label else {}
    cluster = cluster_of(node("n1"), pod("p", "1", ns="shop", node_name="n1", labels=labels,
                                         meta_extra={"ownerReferences": list(refs)}))
    return owner_of(cluster.find_pod("shop/p"))


def _ref(kind: str, name: str, controller: bool | None = True) -> dict:
    out = {"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": f"u-{name}"}
    if controller is not None:
        out["controller"] = controller
    return out


def test_a_deployment_s_replicaset_is_reported_as_its_deployment() -> None:
    """The Deployment controller names its ReplicaSet ``<deployment>-<pod-template-hash>``
    and labels its pods with that hash (``getNewReplicaSet``): the victim's owner is the
    Deployment."""
    assert _owned(_ref("ReplicaSet", "web-7d9f5"), hash_label="7d9f5") == "Deployment/shop/web"


def test_a_replicaset_without_the_hash_is_reported_as_itself() -> None:
    """A ReplicaSet whose pods carry no ``pod-template-hash`` (created directly), or whose
    name does not end in the hash, is its own owner."""
    assert _owned(_ref("ReplicaSet", "web-7d9f5")) == "ReplicaSet/shop/web-7d9f5"
    assert _owned(_ref("ReplicaSet", "web"), hash_label="7d9f5") == "ReplicaSet/shop/web"


def test_only_the_controller_reference_names_the_owner() -> None:
    """``metav1.GetControllerOf``: the owner reference with ``controller: true``; others
    (a plain owner, an unset flag) are skipped, whatever their order."""
    assert _owned(_ref("ConfigMap", "cfg", controller=False), _ref("ConfigMap", "c2", None),
                  _ref("StatefulSet", "db-main")) == "StatefulSet/shop/db-main"
    assert _owned(_ref("Job", "etl-1234"), hash_label="1234") == "Job/shop/etl-1234"
    assert _owned(_ref("ConfigMap", "cfg", controller=False)) == "Pod/shop/p"
    assert _owned() == "Pod/shop/p"


def test_a_preemptor_whose_room_was_taken_preempts_again_elsewhere() -> None:
    """n1, n2, n3 (2 CPU each) run ``a``, ``b``, ``e`` (class low, 2 CPU, each guarded by
    a budget allowing 0 disruptions; ``a`` started 2024-06, ``b`` 2024-01, ``e`` has no
    startTime). ``nom1`` and ``nom2`` (200) are nominated to n1 and n2. ``high`` (1000,
    ``preemptionPolicy: Never``) finds no room and waits; ``mid`` (500) preempts: one
    victim and one violation on any node, so ``pickOneNodeForPreemption`` takes the node
    whose victim started latest, a victim without startTime counting as started at the
    time of the cycle (2001): n1, clearing nom1's nomination. When ``a`` is gone (30 s)
    the queue retries by priority: ``high`` binds to n1 (a lower nominee does not hold
    room against it), ``mid`` no longer fits there and preempts again, at 30 s: ``b`` on
    n2 (2024 is later than e's 2001), another violation, clearing nom2's nomination; 30 s
    later it binds to n2. Its answer sums both preemptions."""
    grace = {"priorityClassName": "low", "terminationGracePeriodSeconds": 30}
    cluster = cluster_of(
        *CLASSES, node("n1", cpu="2"), node("n2", cpu="2"), node("n3", cpu="2"),
        pod("a", "2", node_name="n1", labels={"app": "a"}, start="2024-06-01T00:00:00Z",
            spec_extra=grace),
        pod("b", "2", node_name="n2", labels={"app": "b"}, start=OLD, spec_extra=grace),
        pod("e", "2", node_name="n3", labels={"app": "e"}, spec_extra=grace),
        *({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
           "metadata": {"name": f"guard-{x}", "namespace": "default"},
           "spec": {"selector": {"matchLabels": {"app": x}}, "maxUnavailable": 0},
           "status": {"disruptionsAllowed": 0}} for x in "abe"),
        *(pod(f"nom{i}", "1", priority=200, status_extra={"nominatedNodeName": f"n{i}"})
          for i in (1, 2)))
    docs = docs_of(pod("high", "2", priority=1000, spec_extra={"preemptionPolicy": "Never"}),
                   pod("mid", "2", priority=500))
    result = what_if(cluster, docs, now=NOW)
    high, mid = result.placements
    assert (high.result, high.bound_node, high.bound_at) == ("unschedulable", "n1", NOW + 30)
    assert (mid.result, mid.node, [v.key for v in mid.victims]) == (
        "preempt", "n2", ["default/a", "default/b"])
    assert (mid.pdb_violations, mid.bound_node, mid.bound_at, mid.message) == (
        2, "n2", NOW + 60, "")
    entry = mid.to_json()
    assert {k: entry[k] for k in ("node", "victims", "pdbViolations", "boundTo",
                                  "clearedNominations")} == {
        "node": "n2", "victims": ["default/a", "default/b"], "pdbViolations": 2,
        "boundTo": "n2", "clearedNominations": ["default/nom1", "default/nom2"]}
    assert result.summary()["pdbViolations"] == 2
    assert cluster.find_pod("default/mid").node_name == "n2"


def _low(name: str, cpu: str, on: str, grace: int, start: str = OLD) -> dict:
    return pod(name, cpu, node_name=on, start=start,
               spec_extra={"priorityClassName": "low", "terminationGracePeriodSeconds": grace})


def test_a_nominee_waits_while_its_own_victims_are_still_terminating() -> None:
    """n1 (4 CPU) runs ``a`` (grace 30 s) and ``c`` (grace 60 s), n2 (1 CPU) ``b``
    (grace 30 s), all class low. ``mid`` (500, 4 CPU) preempts a and c on n1; ``lo``
    (200, 1 CPU) preempts b on n2; ``mid2`` (400, 2 CPU, Never) waits. At 30 s a and b
    are gone: mid is not eligible to preempt again while c, its own victim, terminates
    on its nominated node (``PodEligibleToPreemptOthers``), so it keeps its nomination
    and mid2 still sees n1 full; lo binds to n2. At 60 s mid binds to n1, and mid2 stays
    pending."""
    cluster = cluster_of(*CLASSES, node("n1", cpu="4"), node("n2", cpu="1"),
                         _low("a", "2", "n1", 30), _low("c", "2", "n1", 60),
                         _low("b", "1", "n2", 30))
    docs = docs_of(pod("mid", "4", priority=500), pod("lo", "1", priority=200),
                   pod("mid2", "2", priority=400, spec_extra={"preemptionPolicy": "Never"}))
    result = what_if(cluster, docs, now=NOW)
    got = {p.pod.name: (p.result, sorted(v.name for v in p.victims), p.bound_node,
                        p.bound_at, p.message) for p in result.placements}
    assert got["mid"] == ("preempt", ["a", "c"], "n1", NOW + 60, "")
    assert got["lo"] == ("preempt", ["b"], "n2", NOW + 30, "")
    assert got["mid2"][:3] == ("unschedulable", [], None)


def test_a_nominee_that_fits_nowhere_once_its_victims_left_loses_its_nomination() -> None:
    """n1 (2 CPU) runs ``a``, n2 (1 CPU) ``b`` (class low, grace 30 s). ``high`` (1000,
    2 CPU, Never) waits; ``mid`` (500, 2 CPU) preempts a on n1; ``lo`` (200, 1 CPU)
    preempts b on n2. At 30 s the queue retries by priority: high binds to n1 (a lower
    nominee holds no room against it); mid fits nowhere and finds no victim (only high,
    higher, on n1): its nomination is cleared, and its answer says so; lo binds to
    n2."""
    cluster = cluster_of(*CLASSES, node("n1", cpu="2"), node("n2", cpu="1"),
                         _low("a", "2", "n1", 30), _low("b", "1", "n2", 30))
    docs = docs_of(pod("high", "2", priority=1000, spec_extra={"preemptionPolicy": "Never"}),
                   pod("mid", "2", priority=500), pod("lo", "1", priority=200))
    result = what_if(cluster, docs, now=NOW)
    high, mid, lo = result.placements
    assert (high.result, high.bound_node) == ("unschedulable", "n1")
    assert (mid.result, mid.node, mid.bound_node) == ("preempt", "n1", None)
    assert mid.message.startswith(
        "preempted, but fits nowhere once its victims left: 0/2 nodes are available")
    assert not cluster.find_pod("default/mid").nominated_node_name
    assert (lo.result, lo.bound_node, lo.bound_at) == ("preempt", "n2", NOW + 30)


def _budget(name: str, ns: str, allowed: int) -> dict:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"selector": {"matchLabels": {"app": "v"}}, "maxUnavailable": allowed},
            "status": {"disruptionsAllowed": allowed}}


def test_a_victim_uses_up_one_disruption_of_its_own_namespace_s_budgets() -> None:
    """The disruption controller recomputes a budget over the pods of its namespace: the
    victim's budget allowing 2 disruptions allows 1 after the preemption; a budget of
    another namespace with the same selector is untouched. The lower-priority pod
    nominated to the victim's node loses its nomination (``prepareCandidate``)."""
    cluster = cluster_of(
        *CLASSES, node("n1", cpu="1"),
        pod("v", "1", node_name="n1", labels={"app": "v"}, start=OLD,
            spec_extra={"priorityClassName": "low"}),
        pod("nom", "1", priority=200, status_extra={"nominatedNodeName": "n1"}),
        _budget("here", "default", 2), _budget("there", "other", 1))
    result = what_if(cluster, docs_of(pod("p", "1", priority=1000)), now=NOW)
    (p,) = result.placements
    assert (p.result, [v.key for v in p.victims], p.pdb_violations) == (
        "preempt", ["default/v"], 0)
    assert {b.key: b.disruptions_allowed for b in cluster.pdbs} == {
        "default/here": 1, "other/there": 1}
    assert p.cleared_nominations == ["default/nom"]
    assert p.to_json()["clearedNominations"] == ["default/nom"]
    assert result.summary()["clearedNominations"] == ["default/nom"]
    assert not cluster.find_pod("default/nom").nominated_node_name


def test_a_nominee_behind_a_terminating_victim_deletes_and_violates_nothing() -> None:
    """n1 (4 CPU) runs ``batch`` (class low, 2 CPU, guarded by a budget allowing 0
    disruptions). web's replicas (1 CPU): two fit, the third preempts batch (one
    violation), the fourth fits once batch is gone too: its dry run removes the same
    terminating victim, which gets no second delete (``prepareCandidateAsync``), so it
    breaks no budget and is nominated to wait for it."""
    cluster = cluster_of(
        *CLASSES, node("n1", cpu="4"),
        pod("batch", "2", node_name="n1", labels={"app": "v"}, start=OLD,
            spec_extra={"priorityClassName": "low", "terminationGracePeriodSeconds": 30}),
        _budget("guard", "default", 0))
    result = what_if(cluster, docs_of(_deployment("web", 4, "1", 1000)), now=NOW)
    got = [(p.result, len(p.victims), p.pdb_violations, p.message) for p in result.placements]
    assert got == [("scheduled", 0, 0, ""), ("scheduled", 0, 0, ""), ("preempt", 1, 1, ""),
                   ("preempt", 0, 0, "waiting for preemption victims on n1")]


def test_a_preemptor_that_fit_nowhere_binds_when_later_room_frees() -> None:
    """As above, with n3 (4 CPU) running ``v`` (priority 600, 4 CPU, grace 60 s) and
    ``top`` (1500, 2 CPU, bound by nodeSelector to n3) preempting it. At 30 s ``mid``
    fits nowhere (v, of higher priority than mid, still holds n3) and loses its
    nomination; at 60 s v is gone: top binds to n3 and mid fits beside it. Its answer no
    longer says it fits nowhere."""
    cluster = cluster_of(*CLASSES, node("n1", cpu="2"), node("n2", cpu="1"),
                         node("n3", cpu="4"),
                         _low("a", "2", "n1", 30), _low("b", "1", "n2", 30),
                         pod("v", "4", node_name="n3", priority=600, start=OLD,
                             spec_extra={"terminationGracePeriodSeconds": 60}))
    docs = docs_of(pod("high", "2", priority=1000, spec_extra={"preemptionPolicy": "Never"}),
                   pod("top", "2", priority=1500,
                       spec_extra={"nodeSelector": {"kubernetes.io/hostname": "n3"}}),
                   pod("mid", "2", priority=500), pod("lo", "1", priority=200))
    result = what_if(cluster, docs, now=NOW)
    got = {p.pod.name: (p.result, p.node, p.bound_node, p.bound_at, p.message)
           for p in result.placements}
    assert got["top"] == ("preempt", "n3", "n3", NOW + 60, "")
    assert got["mid"] == ("preempt", "n1", "n3", NOW + 60, "")
    assert got["high"][:4] == ("unschedulable", None, "n1", NOW + 30)
    assert got["lo"][:4] == ("preempt", "n2", "n2", NOW + 30)


def test_preempting_only_a_pod_already_being_deleted_clears_no_nomination() -> None:
    """n1 runs ``x`` (class low, 2 CPU), already being deleted; ``nom`` (200) is
    nominated to n1. ``p`` (1000, 2 CPU) fits once x is gone: its only victim is
    terminating, so nothing is deleted (``prepareCandidateAsync``), and no lower
    nomination is cleared: p is nominated to wait for x, nom keeps its nomination."""
    cluster = cluster_of(
        *CLASSES, node("n1", cpu="2"),
        pod("x", "2", node_name="n1", start=OLD, spec_extra={"priorityClassName": "low"},
            meta_extra={"deletionTimestamp": "2001-09-09T01:46:30Z",
                        "deletionGracePeriodSeconds": 30, "finalizers": ["x/y"]}),
        pod("nom", "1", priority=200, status_extra={"nominatedNodeName": "n1"}))
    result = what_if(cluster, docs_of(pod("p", "2", priority=1000)), now=NOW)
    (p,) = result.placements
    assert (p.result, p.node, p.victims, p.cleared_nominations, p.message) == (
        "preempt", "n1", [], [], "waiting for preemption victims on n1")
    assert cluster.find_pod("default/nom").nominated_node_name == "n1"


def test_explain_lists_every_preemption_candidate() -> None:
    """With explain each preemption's answer lists its candidates, one per node with
    victims: three for the first replica, then the two nodes left for the second."""
    cluster = cluster_of(*CLASSES, *(node(f"n{i}", cpu="1") for i in (1, 2, 3)),
                         *(_low(f"v{i}", "1", f"n{i}", 30) for i in (1, 2, 3)))
    result = what_if(cluster, docs_of(_deployment("web", 2, "1", 1000)), now=2e9,
                     explain=True)  # 2033: after every victim started
    first, second = result.to_json(True)["pods"]
    assert len(first["candidates"]) == 3
    assert sorted(c["node"] for c in second["candidates"]) == sorted(
        {"n1", "n2", "n3"} - {first["node"]})
