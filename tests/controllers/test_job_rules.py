"""A Job's pods, from upstream ``pkg/registry/batch/job/strategy.go`` (``generateSelector``:
unless ``manualSelector`` is true the API server adds the ``batch.kubernetes.io/
controller-uid`` / ``batch.kubernetes.io/job-name`` labels and their legacy
``controller-uid`` / ``job-name`` forms to the template) and ``pkg/controller/job``
(``manageJob``, ``podGenerateNameWithIndex``)."""

from __future__ import annotations

from kubepreempt.controllers.expand import (
    JOB_CONTROLLER_UID,
    JOB_NAME,
    LEGACY_CONTROLLER_UID,
    LEGACY_JOB_NAME,
    Names,
    expand,
)

CONTAINERS = [{"name": "c", "image": "busybox:1.36"}]


def job(spec: dict, ns: str | None = "shop") -> dict:
    meta = {"name": "etl", "uid": "job-uid"}
    if ns is not None:
        meta["namespace"] = ns
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": spec}


GENERATED = {JOB_CONTROLLER_UID: "job-uid", JOB_NAME: "etl",
             LEGACY_CONTROLLER_UID: "job-uid", LEGACY_JOB_NAME: "etl"}


def test_a_manual_selector_gets_no_generated_labels() -> None:
    """``manualSelector: true``: the user's selector and template labels stay as written."""
    spec = {"manualSelector": True, "selector": {"matchLabels": {"app": "etl"}},
            "template": {"metadata": {"labels": {"app": "etl"}},
                         "spec": {"containers": CONTAINERS}}}
    [pod] = expand(job(spec), Names()).pods
    assert pod["metadata"]["labels"] == {"app": "etl"}


def test_a_template_without_metadata_gets_the_generated_labels() -> None:
    """``generateSelector`` creates the template's labels when it has none."""
    [pod] = expand(job({"template": {"spec": {"containers": CONTAINERS}}}), Names()).pods
    assert pod["metadata"]["labels"] == GENERATED
