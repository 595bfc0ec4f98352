"""Make the tests' builders importable as ``builders``; choose the Hypothesis profile.

``pytest`` runs derandomized property tests (profile ``ci``); ``pytest -m fuzz`` runs the
long fuzz suite plus every property test under the long randomized profile ``fuzz``
(tests/profiles.py, docs/TESTING.md).
"""

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import profiles  # noqa: E402
from hypothesis import settings  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    if config.option.markexpr.strip() == "fuzz":
        os.environ.setdefault(profiles.PROFILE_ENV, "fuzz")
    settings.load_profile(profiles.active_profile())


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # In the fuzz run (-m fuzz) the property tests run too, long and randomized.
    if profiles.active_profile() == "fuzz":
        for item in items:
            if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
                item.add_marker(pytest.mark.fuzz)
