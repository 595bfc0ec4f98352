"""UIDs of the objects an expansion creates. Upstream the API server gives every object a
random UID of its own (``rest.FillObjectMetaSystemFields``); the stand-ins must be as
unique: workloads (and their pods) that differ in namespace or name never share one."""

from __future__ import annotations

from kubepreempt.controllers.expand import Names, expand

TEMPLATE = {"metadata": {"labels": {"app": "db"}},
            "spec": {"containers": [{"name": "c", "image": "postgres:16"}]}}


def uids(kind: str, ns: str, name: str) -> set[str]:
    """The owner UID and the pods' UIDs of a workload without ``metadata.uid``."""
    api = "batch/v1" if kind == "Job" else "apps/v1"
    exp = expand({"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": ns},
                  "spec": {"replicas": 1, "template": TEMPLATE}}, Names())
    out = {p["metadata"]["uid"] for p in exp.pods}
    out |= {p["metadata"]["ownerReferences"][0]["uid"] for p in exp.pods}
    return out


def test_statefulsets_in_two_namespaces_or_of_two_names_share_no_uid() -> None:
    """``db-0`` of namespace ``shop`` and ``db-0`` of ``team`` are different pods of
    different sets."""
    got = [uids("StatefulSet", "shop", "db"), uids("StatefulSet", "team", "db"),
           uids("StatefulSet", "shop", "cache")]
    assert all(len(u) == 2 for u in got)
    assert len(got[0] | got[1] | got[2]) == 6


def test_jobs_in_two_namespaces_or_of_two_names_share_no_uid() -> None:
    got = [uids("Job", "shop", "etl"), uids("Job", "team", "etl"), uids("Job", "shop", "load")]
    assert all(len(u) == 2 for u in got)
    assert len(got[0] | got[1] | got[2]) == 6
