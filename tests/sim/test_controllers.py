"""Workload controllers and quota admission in the simulator: hand-worked timelines."""

from __future__ import annotations

import textwrap

import pytest
from builders.controllers import CLASSES, deployment, short, template
from builders.sim import node, pod, timeline

from kubepreempt.api.errors import InputError, Source
from kubepreempt.manifests import Documents, parse_text
from kubepreempt.manifests import _flatten as flatten
from kubepreempt.sim import build_scenario, simulate
from kubepreempt.sim.engine import SimResult


def run(text: str, controller_latency: float = 0.0, until: float | None = None) -> SimResult:
    docs = Documents()
    for i, doc in enumerate(parse_text(textwrap.dedent(CLASSES + text), "test.yaml")):
        flatten(doc, Source("test.yaml", i), docs)
    return simulate(build_scenario(docs, 0), controller_latency=controller_latency,
                    until=until)


def job(name: str, pc: str, extra_spec: str = "", **kw: str) -> str:
    return f"""
---
apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  namespace: default
spec:{extra_spec}""" + template(pc, labels=f"{{app: {name}}}",
                                extra="\n      restartPolicy: Never", **kw)


def high_pod(name: str, arrival: str, node_name: str, ns: str = "default") -> str:
    return f"""
---
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: {ns}
  annotations: {{kubepreempt.io/arrival: "{arrival}"}}
spec:
  priorityClassName: high
  nodeSelector: {{kubernetes.io/hostname: {node_name}}}
  containers:
  - name: c
    resources: {{requests: {{cpu: "1"}}}}
"""


def labelled_node(name: str, cpu: int, **ann: str) -> str:
    return node(name, cpu, **ann).replace(
        f"  name: {name}\n", f"  name: {name}\n  labels: {{kubernetes.io/hostname: {name}}}\n")


def test_cascade_high_pod_preempts_mid_replica_whose_replacement_preempts_a_job() -> None:
    """n1 and n2 have 1 CPU each. At 0 the mid Deployment's pod takes n1 (first by name of
    the tied nodes) and the low Job's pod takes n2. At 10 `hi` (pinned to n1) preempts the
    mid pod; its ReplicaSet replaces it at once (a terminating pod is not active), and the
    replacement — nothing free, only the Job's pod is lower — preempts the Job pod on n2.
    Both victims exit after 5 s: at 15 `hi` binds on n1, the replacement on n2. The Job
    counts one failure as the pod is deleted (no pod failure policy: ``isPodFailed``) and
    replaces it after the 10-s pod failure back-off, at 20; it stays pending (priority
    100, nothing lower to preempt)."""
    r = run(labelled_node("n1", 1) + labelled_node("n2", 1) + deployment("mid", 1, "mid")
            + job("batch", "low") + high_pod("hi", "10", "n1"))
    got = [(t, e, short(p), n) for t, e, p, n in
           timeline(r, "bound", "preempted", "nominated", "terminated")]
    assert got == [
        (0.0, "bound", "mid", "n1"), (0.0, "bound", "batch", "n2"),
        (10.0, "preempted", "mid", "n1"), (10.0, "nominated", "hi", "n1"),
        (10.0, "preempted", "batch", "n2"), (10.0, "nominated", "mid", "n2"),
        (15.0, "terminated", "mid", "n1"), (15.0, "terminated", "batch", "n2"),
        (15.0, "bound", "hi", "n1"), (15.0, "bound", "mid", "n2")]
    arrivals = [(t, short(p)) for t, _, p, _ in timeline(r, "arrived")]
    assert arrivals == [(0.0, "mid"), (0.0, "batch"), (10.0, "hi"), (10.0, "mid"),
                        (20.0, "batch")]
    c = r.metrics
    assert c["podsCreated"] == 4 and c["podsLost"] == 2
    assert c["jobs"] == {"Job/default/batch": {"succeeded": 0, "failed": 1,
                                               "status": "Running"}}
    pending = [k for k, rec in r.records.items() if rec.phase == "Pending"]
    assert [short(k) for k in pending] == ["batch"]


def test_controller_latency_delays_each_creation() -> None:
    """With 2 s controller latency the Deployment's pod is created at 2, its replacement
    at 12 (the preemption at 10 plus 2)."""
    r = run(labelled_node("n1", 1) + deployment("mid", 1, "mid")
            + high_pod("hi", "10", "n1"), controller_latency=2.0)
    assert [(t, short(p)) for t, _, p, _ in timeline(r, "arrived")] == [
        (2.0, "mid"), (10.0, "hi"), (12.0, "mid")]


def test_statefulset_replacement_keeps_the_name_once_the_old_pod_is_gone() -> None:
    """db-0 runs on n1; hi preempts it at 10; it exits at 15 and only then does the
    StatefulSet create db-0 again (same name), which stays pending behind hi."""
    sts = """
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  replicas: 1
  serviceName: db
  selector: {matchLabels: {app: db}}""" + template("mid", labels="{app: db}")
    r = run(labelled_node("n1", 1) + sts + high_pod("hi", "10", "n1"))
    assert timeline(r, "arrived", "preempted", "terminated", "bound") == [
        (0.0, "arrived", "db-0", None), (0.0, "bound", "db-0", "n1"),
        (10.0, "arrived", "hi", None), (10.0, "preempted", "db-0", "n1"),
        (15.0, "terminated", "db-0", "n1"), (15.0, "arrived", "db-0", None),
        (15.0, "bound", "hi", "n1")]
    assert r.records["default/db-0"].phase == "Pending"
    assert r.records["default/db-0~1"].phase == "Failed"  # the first life, kept


def test_ordered_ready_statefulset_creates_one_pod_at_a_time() -> None:
    """OrderedReady: db-1 is created only once db-0 is bound (both at 0, in order)."""
    sts = """
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  replicas: 3
  serviceName: db
  selector: {matchLabels: {app: db}}""" + template("mid", labels="{app: db}")
    r = run(labelled_node("n1", 2) + sts)
    assert timeline(r, "arrived", "bound") == [
        (0.0, "arrived", "db-0", None), (0.0, "bound", "db-0", "n1"),
        (0.0, "arrived", "db-1", None), (0.0, "bound", "db-1", "n1"),
        (0.0, "arrived", "db-2", None)]


QUOTA = """
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: mid-pods, namespace: team}
spec:
  hard: {pods: "2"}
  scopeSelector:
    matchExpressions:
    - {scopeName: PriorityClass, operator: In, values: [mid]}
"""


def test_quota_refusal_and_the_controllers_retry() -> None:
    """mid-pods allows 2 mid pods in team; the Deployment's 2 run on n1 (2 CPU). hi (not
    in the quota's scope) preempts one at 10. The ReplicaSet's replacement is refused at
    10: the victim still counts (a deleted pod is charged until it is gone or its grace
    period is over). The victim exits at 15: its delete event syncs the ReplicaSet at
    once, and the pod is created (pending: hi took the room)."""
    r = run(labelled_node("n1", 2) + QUOTA + deployment("web", 2, "mid", ns="team")
            + high_pod("hi", "10", "n1", ns="team"))
    refused = timeline(r, "quota-refused")
    assert [(t, short(p)) for t, _, p, _ in refused] == [(10.0, "web")]
    msg = next(e.detail for e in r.events if e.type == "quota-refused")
    assert msg.endswith("is forbidden: exceeded quota: mid-pods, requested: pods=1, "
                        "used: pods=2, limited: pods=2")
    arrivals = [(round(t, 3), short(p)) for t, _, p, _ in timeline(r, "arrived")]
    assert arrivals == [(0.0, "web"), (0.0, "web"), (10.0, "hi"), (15.0, "web")]
    assert r.metrics["quotaRefusals"] == {"team": {"mid": 1}}


def test_quota_freed_by_another_pod_is_seen_at_the_next_back_off_tick() -> None:
    """filler (mid, team, runs 15 s) and web's first pod use the 2 mid pods; web's second
    is refused at 0. filler completes at 15; the ReplicaSet's work-queue retries fall at
    0.005 * (2^k - 1): ... 10.235, 20.475 — the pod is created at 20.475."""
    filler = pod("filler", 1, 0, duration="15s").replace(
        "priority: 0", "priorityClassName: mid").replace("namespace: default", "namespace: team")
    r = run(labelled_node("n1", 4) + QUOTA + filler + deployment("web", 2, "mid", ns="team"))
    arrivals = [(round(t, 3), short(p)) for t, _, p, _ in timeline(r, "arrived")]
    assert arrivals == [(0.0, "filler"), (0.0, "web"), (20.475, "web")]
    assert [t for t, *_ in timeline(r, "quota-refused")] == [0.0]


def test_bare_pod_refused_by_quota_is_not_retried() -> None:
    bare = pod("p1", 1, 0).replace("priority: 0", "priorityClassName: mid").replace(
        "namespace: default", "namespace: team")
    bare2 = bare.replace("name: p1", "name: p2").replace("name: p2\n", "name: p2\n", 1)
    bare3 = bare.replace("name: p1", "name: p3")
    r = run(labelled_node("n1", 4) + QUOTA + bare + bare2 + bare3)
    assert timeline(r, "quota-refused") == [(0.0, "quota-refused", "p3", None)]
    assert r.records["team/p3"].phase == "Failed"
    assert r.metrics["quotaRefusals"] == {"team": {"mid": 1}}


@pytest.mark.parametrize(("policy", "failed", "status"), [
    ("", 1, "Failed"),  # backoffLimit 0: one counted failure fails the Job
    ("""
  podFailurePolicy:
    rules:
    - action: Ignore
      onPodConditions: [{type: DisruptionTarget}]""", 0, "Running"),
])
def test_job_backoff_limit_counts_disruptions_unless_the_policy_ignores_them(
        policy: str, failed: int, status: str) -> None:
    """A preempted Job pod ends Failed with DisruptionTarget: counted against
    backoffLimit 0 (the Job fails, no replacement) unless a pod failure policy rule
    ignores DisruptionTarget (then a replacement is created once the pod is gone —
    podReplacementPolicy Failed with a policy)."""
    r = run(labelled_node("n1", 1) + job("batch", "low", "\n  backoffLimit: 0" + policy)
            + high_pod("hi", "10", "n1"))
    jobs = r.metrics["jobs"]["Job/default/batch"]
    assert (jobs["failed"], jobs["status"]) == (failed, status)
    arrivals = [(t, short(p)) for t, _, p, _ in timeline(r, "arrived")]
    want = [(0.0, "batch"), (10.0, "hi")] + ([(15.0, "batch")] if status == "Running" else [])
    assert arrivals == want


def test_job_completions_beyond_parallelism_and_indexed_names() -> None:
    """Indexed, completions 3, parallelism 2, each pod runs 10 s: indices 0 and 1 at 0,
    index 2 when the first completes (10), all done at 20."""
    spec = "\n  completions: 3\n  parallelism: 2\n  completionMode: Indexed"
    text = job("idx", "low", spec).replace(
        '{kubepreempt.io/exit-after-signal: "5s"}',
        '{kubepreempt.io/exit-after-signal: "5s", kubepreempt.io/duration: "10s"}')
    r = run(labelled_node("n1", 4) + text)
    arrivals = [(t, p.split("-")[1]) for t, _, p, _ in timeline(r, "arrived")]
    assert arrivals == [(0.0, "0"), (0.0, "1"), (10.0, "2")]
    assert r.metrics["jobs"]["Job/default/idx"] == {"succeeded": 3, "failed": 0,
                                                    "status": "Complete"}


def test_daemonset_runs_a_pod_on_each_new_node() -> None:
    ds = """
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: default}
spec:
  selector: {matchLabels: {app: agent}}""" + template("mid", cpu=1, labels="{app: agent}")
    r = run(labelled_node("n1", 2) + labelled_node("n2", 2, arrival="30"))
    assert r  # nodes alone
    r = run(labelled_node("n1", 2) + labelled_node("n2", 2, arrival="30") + ds)
    assert [(t, n) for t, _, _, n in timeline(r, "bound")] == [(0.0, "n1"), (30.0, "n2")]


def test_bad_pod_failure_policy_is_an_input_error() -> None:
    bad = job("batch", "low", "\n  podFailurePolicy:\n    rules:\n    - action: Retry")
    with pytest.raises(InputError, match="podFailurePolicy.rules"):
        run(labelled_node("n1", 1) + bad)


def test_runaway_replacement_loop_ends_at_the_event_limit() -> None:
    """A Deployment whose pods complete after 1 s is replaced for ever (the ReplicaSet
    recreates every pod that ends): without --until the run stops at the event limit
    with a message saying so."""
    churn = deployment("churn", 1, "mid").replace(
        '{kubepreempt.io/exit-after-signal: "5s"}', '{kubepreempt.io/duration: "1s"}')
    docs = Documents()
    for i, doc in enumerate(parse_text(textwrap.dedent(CLASSES + labelled_node("n1", 1)
                                                       + churn), "test.yaml")):
        flatten(doc, Source("test.yaml", i), docs)
    with pytest.raises(InputError, match="reached 500 events at simulated time .* --until"):
        simulate(build_scenario(docs, 0), max_events=500)
    # Bounded by --until it ends: one pod per second.
    r = simulate(build_scenario(docs, 0), until=10.0)
    assert r.metrics["podsCreated"] == 11


def test_object_count_quota_refuses_a_second_deployment_and_its_replicaset() -> None:
    """count/deployments.apps: 1 in team: web is created (and its ReplicaSet), api is
    refused at 10 with the apiserver's message and creates no pods; with
    count/replicasets.apps: 0 instead, web's ReplicaSet is refused."""
    def quota(hard: str) -> str:
        return f"""
---
apiVersion: v1
kind: ResourceQuota
metadata: {{name: objects, namespace: team}}
spec:
  hard: {{{hard}}}
"""
    web = deployment("web", 1, "mid", ns="team")
    api = deployment("api", 1, "mid", ns="team", arrival="10")
    r = run(labelled_node("n1", 4) + quota('count/deployments.apps: "1"') + web + api)
    refused = [(e.time, e.pod, e.detail) for e in r.events if e.type == "quota-refused"]
    assert refused == [(10.0, "Deployment/team/api",
                        'deployments.apps "api" is forbidden: exceeded quota: objects, '
                        "requested: count/deployments.apps=1, used: count/deployments.apps=1, "
                        "limited: count/deployments.apps=1")]
    assert [short(p) for _, _, p, _ in timeline(r, "arrived")] == ["web"]
    r = run(labelled_node("n1", 4) + quota('count/replicasets.apps: "0"') + web)
    refused = [e.detail for e in r.events if e.type == "quota-refused"]
    assert len(refused) == 1 and refused[0].startswith('replicasets.apps "web-')
    assert refused[0].endswith("requested: count/replicasets.apps=1, used: "
                               "count/replicasets.apps=0, limited: count/replicasets.apps=0")
    assert timeline(r, "arrived") == []
