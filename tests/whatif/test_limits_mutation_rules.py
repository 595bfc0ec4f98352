"""How many pods a workload asks for at once, read from its manifest before expansion.

Expected counts come from the API defaults and the controllers: a Deployment, ReplicaSet
or StatefulSet asks for ``spec.replicas`` pods (defaulted to 1, ``SetDefaults_Deployment``
and friends); a Job for ``min(parallelism, completions)`` (parallelism defaulted to 1,
the Job controller's ``wantActive``; none while ``suspend`` is set); a CronJob for its
``jobTemplate``'s Job; a DaemonSet's count is bounded by the cluster (0 here). A count
that is not a positive integer counts as 0 here: expansion reports it.
"""

from __future__ import annotations

import pytest
from builders import docs_of

from kubepreempt.api.errors import InputError
from kubepreempt.whatif.limits import check_pod_limit, requested_pods


@pytest.mark.parametrize(("kind", "body", "want"), [
    ("Deployment", {}, 1),
    ("Deployment", {"spec": None}, 1),
    ("ReplicaSet", {"spec": {}}, 1),
    ("StatefulSet", {"spec": {"replicas": 1}}, 1),
    ("Deployment", {"spec": {"replicas": 7}}, 7),
    ("Deployment", {"spec": {"replicas": 0}}, 0),
    ("Deployment", {"spec": {"replicas": -2}}, 0),
    ("Deployment", {"spec": {"replicas": "3"}}, 0),
    ("Deployment", {"spec": {"replicas": True}}, 0),
    ("DaemonSet", {}, 0),
    ("DaemonSet", {"spec": {"replicas": 5}}, 0),
    ("Pod", {"spec": {}}, 0),
    ("Job", {"spec": {}}, 1),
    ("Job", {"spec": None}, 0),
    ("Job", {"spec": {"parallelism": 3}}, 3),
    ("Job", {"spec": {"parallelism": 5, "completions": 2}}, 2),
    ("Job", {"spec": {"parallelism": 2, "completions": 5}}, 2),
    ("Job", {"spec": {"completions": 4}}, 1),
    ("Job", {"spec": {"parallelism": 0}}, 0),
    ("Job", {"spec": {"parallelism": 3, "completions": 0}}, 0),
    ("Job", {"spec": {"parallelism": "x", "completions": 4}}, 0),
    ("Job", {"spec": {"parallelism": 3, "completions": "x"}}, 0),
    ("Job", {"spec": {"parallelism": 3, "suspend": True}}, 0),
    ("CronJob", {"spec": {"jobTemplate": {"spec": {"parallelism": 4, "completions": 6}}}}, 4),
    ("CronJob", {"spec": {"jobTemplate": {"spec": {}}}}, 1),
    ("CronJob", {"spec": {"jobTemplate": None}}, 0),
    ("CronJob", {"spec": {}}, 0),
    ("CronJob", {"spec": {"jobTemplate": {"spec": {"suspend": True}}}}, 0),
])
def test_pods_asked_for_at_once(kind: str, body: dict, want: int) -> None:
    assert requested_pods(kind, body) == want


def _deployment(replicas: int, ns: str | None = None) -> dict:
    meta = {"name": "web"} if ns is None else {"name": "web", "namespace": ns}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta,
            "spec": {"replicas": replicas, "template": {"spec": {"containers": [
                {"name": "c", "image": "x"}]}}}}


def test_a_workload_above_the_limit_is_refused_by_name() -> None:
    """At the limit it passes; one above it, the error names the file, the document, the
    kind and ``namespace/name`` (``default`` when the manifest names none)."""
    check_pod_limit(docs_of(_deployment(4)), ("Deployment",), 4)
    with pytest.raises(InputError) as err:
        check_pod_limit(docs_of(_deployment(5)), ("Deployment",), 4)
    assert str(err.value) == (
        "test.yaml, document 1: Deployment default/web: asks for 5 pods, more than "
        "--max-pods 4; placing them one by one would take long and much memory (check the "
        "count, or raise --max-pods)")
    with pytest.raises(InputError) as err:
        check_pod_limit(docs_of(_deployment(1_000_001, "shop")), ("Deployment",), 100_000)
    assert str(err.value).startswith(
        "test.yaml, document 1: Deployment shop/web: asks for 1,000,001 pods, more than "
        "--max-pods 100,000;")
