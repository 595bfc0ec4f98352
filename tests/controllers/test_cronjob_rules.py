"""A CronJob's expansion and its refusals, from upstream ``pkg/controller/cronjob``
(``syncCronJob``: nothing while suspended; the Job in the CronJob's namespace) and
``pkg/apis/batch/validation`` (``validateCronJobSpec``: ``schedule`` is required and must
parse; ``spec.timeZone`` must name a known zone)."""

from __future__ import annotations

import pytest

from kubepreempt.api.errors import InputError
from kubepreempt.controllers.expand import Names, cronjob_job, expand

TEMPLATE = {"spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}
NOW = 1_700_000_059.0


def cronjob(ns: str | None, **spec) -> dict:
    meta = {"name": "nightly"}
    if ns is not None:
        meta["namespace"] = ns
    return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": meta,
            "spec": {"schedule": "0 2 * * *",
                     "jobTemplate": {"spec": {"template": TEMPLATE}}, **spec}}


def test_the_expansion_is_in_the_cronjobs_namespace() -> None:
    """A suspended CronJob of ``shop`` is expanded (to nothing) in ``shop``; a running
    one without a namespace in ``default``, like its Job and pods."""
    suspended = expand(cronjob("shop", suspend=True), Names(), now=NOW)
    assert (suspended.key, suspended.pods) == ("CronJob/shop/nightly", [])
    running = expand(cronjob(None), Names(), now=NOW)
    assert running.key == "CronJob/default/nightly"
    assert [p["metadata"]["namespace"] for p in running.pods] == ["default"]


def test_cronjobs_of_one_name_in_two_namespaces_own_their_jobs_by_different_uids() -> None:
    def owner(ns: str) -> str:
        return cronjob_job(cronjob(ns), Names(), NOW)["metadata"]["ownerReferences"][0]["uid"]
    assert owner("shop") != owner("team")


@pytest.mark.parametrize(("spec", "message"), [
    ({"schedule": None}, "spec.schedule '' is not a cron expression"),
    ({"timeZone": "Mars/Olympus"}, "unknown spec.timeZone 'Mars/Olympus'"),
])
def test_a_missing_schedule_or_an_unknown_zone_is_refused(spec: dict, message: str) -> None:
    with pytest.raises(InputError) as err:
        expand(cronjob("shop", **spec), Names(), now=NOW)
    assert f"cannot expand: {message}" in str(err.value)
