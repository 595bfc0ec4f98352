"""The Job a CronJob creates, field by field, from upstream
``pkg/controller/cronjob/utils.go`` ``getJobFromTemplate2`` (labels and annotations copied
from ``spec.jobTemplate``, the scheduled-timestamp annotation, ``getJobName``,
``metav1.NewControllerRef(cj, controllerKind)``, ``cj.Spec.JobTemplate.Spec.DeepCopyInto``)
and ``cronjob_controllerv2.go`` ``syncCronJob`` (the Job is created in the CronJob's
namespace)."""

from __future__ import annotations

from kubepreempt.controllers.expand import Names, cronjob_job, expand

TEMPLATE = {"metadata": {"labels": {"app": "etl"}},
            "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}
# 2023-11-14 22:14:19 UTC; "0 2 * * *" next fires 2023-11-15 02:00 UTC = 1700013600.
NOW = 1_700_000_059.0


def cronjob(ns: str | None = None, **meta: str) -> dict:
    m = {"name": "nightly", **meta}
    if ns:
        m["namespace"] = ns
    return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": m,
            "spec": {"schedule": "0 2 * * *", "jobTemplate": {
                "metadata": {"labels": {"team": "a"}, "annotations": {"note": "x"}},
                "spec": {"backoffLimit": 2, "template": TEMPLATE}}}}


def test_job_from_template() -> None:
    """Every field of the created Job: ``batch/v1`` ``Job``, named ``<cronjob>-<minutes>``
    in the CronJob's namespace (``default`` when unnamed), the template's labels and
    annotations plus ``batch.kubernetes.io/cronjob-scheduled-timestamp``, one controller
    reference to the CronJob, and the template's spec."""
    cj = cronjob(uid="cj-uid")
    job = cronjob_job(cj, Names(), NOW)
    assert job == {
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": f"nightly-{1_700_013_600 // 60}", "namespace": "default",
                     "labels": {"team": "a"},
                     "annotations": {"note": "x", "batch.kubernetes.io/"
                                     "cronjob-scheduled-timestamp": "2023-11-15T02:00:00Z"},
                     "ownerReferences": [{"apiVersion": "batch/v1", "kind": "CronJob",
                                          "name": "nightly", "uid": "cj-uid",
                                          "controller": True,
                                          "blockOwnerDeletion": True}]},
        "spec": {"backoffLimit": 2, "template": TEMPLATE}}
    # DeepCopyInto: the Job's spec is a copy, not the CronJob's template itself.
    job["spec"]["template"]["spec"]["containers"][0]["image"] = "changed"
    assert cj["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0][
        "image"] == "busybox:1.36"


def test_owner_uid_without_metadata_uid_is_stable_per_cronjob() -> None:
    """A CronJob without ``metadata.uid`` still owns its Job by a UID of its own,
    different for another CronJob."""
    a = cronjob_job(cronjob("team"), Names(), NOW)
    other = dict(cronjob("team"), metadata={"name": "weekly", "namespace": "team"})
    b = cronjob_job(other, Names(), NOW)
    ua = a["metadata"]["ownerReferences"][0]["uid"]
    assert ua and ua != "None" and ua != b["metadata"]["ownerReferences"][0]["uid"]
    assert a["metadata"]["namespace"] == "team"


def test_expansion_names_the_cronjob() -> None:
    """The expansion is the CronJob's (kind, namespace, name), created or suspended."""
    exp = expand(cronjob("team"), Names(), now=NOW)
    assert (exp.kind, exp.namespace, exp.name) == ("CronJob", "team", "nightly")
    assert [p["metadata"]["namespace"] for p in exp.pods] == ["team"]
    suspended = cronjob()
    suspended["spec"]["suspend"] = True
    exp = expand(suspended, Names(), now=NOW)
    assert (exp.kind, exp.namespace, exp.name, exp.pods) == (
        "CronJob", "default", "nightly", [])
