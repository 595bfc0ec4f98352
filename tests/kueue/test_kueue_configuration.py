"""Reading a Kueue Configuration as upstream does, in both config API versions.

Expected answers: ``fairsharing.Enabled(pfs) = pfs != nil`` (v1beta2 has no ``enable``
field), ``Convert_v1beta1_Configuration_To_v1beta2_Configuration`` (the block is dropped
unless ``enable: true``; strategies default to both), and ``validateFairSharing``
("must be specified") with strict decoding (``serializer.EnableStrict``).
"""

from __future__ import annotations

from typing import Any

import pytest

from kubepreempt.api.errors import InputError, Source
from kubepreempt.kueue.admission import load_inputs
from kubepreempt.kueue.objects import DEFAULT_STRATEGIES, LESS_THAN_INITIAL_SHARE
from kubepreempt.manifests import Documents, RawObject

V1BETA1 = "config.kueue.x-k8s.io/v1beta1"
V1BETA2 = "config.kueue.x-k8s.io/v1beta2"


def _config(body: dict[str, Any]):
    docs = Documents()
    docs.add(RawObject("Configuration", {"kind": "Configuration", **body},
                       Source("config.yaml", 0)))
    return load_inputs(docs).config


@pytest.mark.parametrize("body,fair", [
    ({"apiVersion": V1BETA2, "fairSharing": {"preemptionStrategies": [LESS_THAN_INITIAL_SHARE]}},
     True),
    ({"apiVersion": V1BETA2}, False),
    ({"apiVersion": V1BETA1, "fairSharing": {"enable": True}}, True),
    ({"apiVersion": V1BETA1, "fairSharing": {"enable": False,
                                             "preemptionStrategies": [LESS_THAN_INITIAL_SHARE]}},
     False),
    ({"apiVersion": V1BETA1, "fairSharing": {}}, False),
    ({"apiVersion": V1BETA1}, False),
])
def test_fair_sharing_is_read_per_config_version(body, fair) -> None:
    assert _config(body).fair_sharing is fair


def test_v1beta2_strategies_are_kept() -> None:
    cfg = _config({"apiVersion": V1BETA2,
                   "fairSharing": {"preemptionStrategies": [LESS_THAN_INITIAL_SHARE]}})
    assert cfg.strategies == (LESS_THAN_INITIAL_SHARE,)


def test_v1beta1_enable_defaults_both_strategies() -> None:
    assert _config({"apiVersion": V1BETA1, "fairSharing": {"enable": True}}).strategies \
        == DEFAULT_STRATEGIES


@pytest.mark.parametrize("fair_sharing,needle", [
    ({"enable": True, "preemptionStrategies": [LESS_THAN_INITIAL_SHARE]},
     "fairSharing.enable is not a v1beta2 field"),
    ({}, "fairSharing.preemptionStrategies: must be specified"),
])
def test_v1beta2_block_is_validated_like_upstream(fair_sharing, needle) -> None:
    with pytest.raises(InputError, match=needle):
        _config({"apiVersion": V1BETA2, "fairSharing": fair_sharing})


@pytest.mark.parametrize("version", [V1BETA1, V1BETA2])
def test_requeuing_strategy_is_a_one_line_warning(capsys, version) -> None:
    _config({"apiVersion": version, "waitForPodsReady": {
        "timeout": "5m", "requeuingStrategy": {"timestamp": "Eviction",
                                               "backoffLimitCount": 5}}})
    err = capsys.readouterr().err
    assert err == ("warning: config.yaml, document 1: Configuration "
                   "waitForPodsReady.requeuingStrategy is ignored: PodsReady-timeout "
                   "evictions and their requeuing are not modelled\n")


def test_no_warning_without_requeuing_strategy(capsys) -> None:
    _config({"apiVersion": V1BETA2, "waitForPodsReady": {"timeout": "5m"}})
    assert capsys.readouterr().err == ""
