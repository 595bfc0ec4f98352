"""A Job's pods, from upstream ``pkg/registry/batch/job/strategy.go`` (``generateSelector``:
unless ``manualSelector`` is true the API server adds the ``batch.kubernetes.io/
controller-uid`` / ``batch.kubernetes.io/job-name`` labels and their legacy
``controller-uid`` / ``job-name`` forms to the template) and ``pkg/controller/job``
(``manageJob``, ``podGenerateNameWithIndex``)."""

from __future__ import annotations

import pytest

from kubepreempt.api.errors import InputError
from kubepreempt.controllers.expand import (
    JOB_CONTROLLER_UID,
    JOB_NAME,
    LEGACY_CONTROLLER_UID,
    LEGACY_JOB_NAME,
    MAX_PODS,
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


def test_pods_of_a_job_without_namespace_are_in_default_and_owned_by_it() -> None:
    """The pods are created in the Job's namespace (``default`` when the manifest names
    none), owned by ``NewControllerRef(job)`` and named from ``<job>-`` in that
    namespace."""
    names = Names()
    exp = expand(job({"template": {"spec": {"containers": CONTAINERS}}}, ns=None), names)
    assert exp.key == "Job/default/etl"
    [pod] = exp.pods
    assert pod["metadata"]["namespace"] == "default"
    assert pod["metadata"]["ownerReferences"] == [{
        "apiVersion": "batch/v1", "kind": "Job", "name": "etl", "uid": "job-uid",
        "controller": True, "blockOwnerDeletion": True}]
    assert not names.claim("default", pod["metadata"]["name"])


def test_without_completions_parallelism_pods_run() -> None:
    """``SetDefaults_Job`` leaves ``completions`` unset when only ``parallelism`` is set
    (a work-queue Job); ``manageJob`` then wants ``parallelism`` active pods."""
    spec = {"parallelism": 3, "template": {"spec": {"containers": CONTAINERS}}}
    assert len(expand(job(spec), Names()).pods) == 3


@pytest.mark.parametrize(("spec", "message"), [
    ({"parallelism": -1}, "spec.parallelism must be a non-negative integer, got -1"),
    ({"completions": -1}, "spec.completions must be a non-negative integer, got -1"),
    ({"parallelism": MAX_PODS + 1},
     f"spec.parallelism {MAX_PODS + 1} is more pods than kubepreempt expands"),
    ({"completionMode": "Indexed"}, "an Indexed Job needs spec.completions"),
])
def test_count_errors_name_the_field(spec: dict, message: str) -> None:
    """``ValidateJobSpec``: ``parallelism`` and ``completions`` are non-negative and an
    Indexed Job requires ``completions``."""
    body = {**spec, "template": {"spec": {"containers": CONTAINERS}}}
    with pytest.raises(InputError) as err:
        expand(job(body), Names())
    assert f"cannot expand: {message}" in str(err.value)
