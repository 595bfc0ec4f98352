"""The apiserver's selector checks on a workload (``ValidateDeploymentSpec`` ->
``ValidatePodTemplateSpecForReplicaSet``; a Job's selector is not checked there) on
malformed input: a refusal, never a crash."""

from __future__ import annotations

import pytest

from kubepreempt.api.errors import InputError
from kubepreempt.controllers.expand import Names, expand


def deployment(template: object) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": template}}


@pytest.mark.parametrize("template", [
    "web",                                                   # not an object
    {"metadata": {"labels": ["app=web"]}, "spec": {}},       # labels not a map
])
def test_a_malformed_template_is_an_input_error(template: object) -> None:
    """The selector cannot match labels the template does not have as a map: the
    Deployment is refused (an input error naming it), not a crash."""
    with pytest.raises(InputError) as err:
        expand(deployment(template), Names())
    assert "Deployment shop/web" in str(err.value)


def test_a_job_with_a_manual_selector_is_not_checked_like_a_replicaset() -> None:
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "etl"},
           "spec": {"manualSelector": True, "selector": {"matchLabels": {"run": "x"}},
                    "template": {"metadata": {"labels": {"run": "x"}},
                                 "spec": {"containers": [{"name": "c", "image": "b:1"}]}}}}
    assert len(expand(job, Names()).pods) == 1
