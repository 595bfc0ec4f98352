"""Kueue's selector-value errors in apimachinery 1.36's wording (``labels.NewRequirement``
joins ``content.IsLabelValue``'s messages with "; "; ``MaxLenError`` counts bytes)."""

from __future__ import annotations

from typing import Any

from builders.kueue import cq, flavor, pod_set, run, wl

LABEL_REGEX = ("a valid label must be an empty string or consist of alphanumeric characters, "
               "'-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
               "'MyValue',  or 'my_value',  or '12345', regex used for validation is "
               "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")


def _affinity(value: str) -> dict[str, Any]:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": "zone", "operator": "In", "values": [value]}]}]}}}


def test_too_long_and_malformed_value_reports_both_messages() -> None:
    value = "-" + "z" * 63
    objs = [flavor("f1", {"zone": "a"}), flavor("f2", {"zone": "b"}),
            cq("q", [("f1", {"cpu": "2"}), ("f2", {"cpu": "2"})]),
            wl("in", pod_sets=[pod_set("main", 1, {"cpu": "1"}, affinity=_affinity(value))],
               queue="q")]
    d = run(objs, "in")
    assert d.message == ("failed to assign flavors to pod set main: nodeSelectorTerms[0]."
                         f'matchExpressions[0].values[0][zone]: Invalid value: "{value}": '
                         "must be no more than 63 bytes; " + LABEL_REGEX)
