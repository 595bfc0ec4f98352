"""The defaulted ``imagePullPolicy`` of a workload's pod template, from upstream
``pkg/apis/core/v1/defaults.go`` ``SetDefaults_Container`` (``Always`` when the tag is
``latest``) and ``pkg/util/parsers`` ``ParseImageName`` (the tag defaults to ``latest``
only when the reference has neither a tag nor a digest)."""

from __future__ import annotations

import pytest

from kubepreempt.controllers.expand import default_pod_template

DIGEST = "sha256:" + "a" * 64


@pytest.mark.parametrize(("image", "policy"), [
    ("nginx", "Always"), ("nginx:latest", "Always"), ("nginx:1.27", "IfNotPresent"),
    (f"nginx@{DIGEST}", "IfNotPresent"),
    # a digest does not hide a written tag: ParseImageName returns tag "latest"
    (f"nginx:latest@{DIGEST}", "Always"), (f"nginx:1.27@{DIGEST}", "IfNotPresent"),
    # a registry port is not a tag
    ("registry.local:5000/team/app", "Always"), ("registry.local:5000/team/app:v2",
                                                 "IfNotPresent"),
])
def test_image_pull_policy_default(image: str, policy: str) -> None:
    """The template as the API server stores it (hashed into ``pod-template-hash`` and
    StatefulSet revisions) carries the defaulted pull policy."""
    stored = default_pod_template({"spec": {"containers": [{"name": "c", "image": image}]}})
    assert stored["spec"]["containers"][0]["imagePullPolicy"] == policy
