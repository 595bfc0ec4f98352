"""ImageLocality: upstream's image_locality_test.go.

Ported: TestNormalizedImageName.

Not ported: TestImageLocalityPriority. The stored upstream copy is the 2019 v1alpha1
version whose expected scores use a fixed 1000MB ceiling; current upstream scales the
ceiling by the pod's container count (``maxContainerThreshold * len(containers)``), which
is what kubepreempt implements (see ``tests/scheduler/test_image_locality.py``), so those
numbers are not current upstream's.
"""

from __future__ import annotations

import hashlib

import pytest

from kubepreempt.scheduler.plugins.image_locality import normalized_image_name

DIGEST = "sha256:" + hashlib.sha256(b"root").hexdigest()


@pytest.mark.parametrize(("image", "want"), [
    ("root", "root:latest"),
    ("gcr.io:5000/root", "gcr.io:5000/root:latest"),
    ("root:tag", "root:tag"),
    ("root@" + DIGEST, "root@" + DIGEST),
], ids=["add :latest postfix 1", "add :latest postfix 2", "keep it as is 1", "keep it as is 2"])
def test_normalized_image_name(image: str, want: str) -> None:
    assert normalized_image_name(image) == want
