"""Label selectors and node selector terms, matched as apimachinery matches them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kubepreempt.apimachinery.validation import is_valid_label_value

_SET_OPS = {"In", "NotIn", "Exists", "DoesNotExist"}
_NODE_OPS = _SET_OPS | {"Gt", "Lt"}


class SelectorError(ValueError):
    """A selector that the API server would reject."""


@dataclass(frozen=True, slots=True)
class Requirement:
    """One ``key operator values`` requirement of a label or node selector."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """True when ``labels`` satisfy this requirement (Gt/Lt compare integers)."""
        op = self.operator
        if op == "In":
            return self.key in labels and labels[self.key] in self.values
        if op == "NotIn":
            return self.key not in labels or labels[self.key] not in self.values
        if op == "Exists":
            return self.key in labels
        if op == "DoesNotExist":
            return self.key not in labels
        # Gt / Lt: both sides must parse as integers, otherwise no match (as upstream).
        if self.key not in labels:
            return False
        try:
            have = int(labels[self.key])
            want = int(self.values[0])
        except (ValueError, IndexError):
            return False
        return have > want if op == "Gt" else have < want


def _requirement(raw: Any, allowed: set[str]) -> Requirement:
    if not isinstance(raw, Mapping):
        raise SelectorError(f"selector requirement must be a mapping, got {raw!r}")
    key = raw.get("key")
    op = raw.get("operator")
    values = raw.get("values") or []
    if not isinstance(key, str) or not key:
        raise SelectorError("selector requirement without a key")
    if op not in allowed:
        raise SelectorError(f"selector operator {op!r} is not one of {sorted(allowed)}")
    if not isinstance(values, list):
        raise SelectorError(f"selector values for {key!r} must be a list")
    values = tuple(str(v) for v in values)
    if op in ("In", "NotIn") and not values:
        raise SelectorError(f"operator {op} on {key!r} needs at least one value")
    if op in ("Exists", "DoesNotExist") and values:
        raise SelectorError(f"operator {op} on {key!r} takes no values")
    if op in ("Gt", "Lt"):
        if len(values) != 1:
            raise SelectorError(f"operator {op} on {key!r} needs exactly one value")
        try:
            int(values[0])
        except ValueError as exc:
            raise SelectorError(f"operator {op} on {key!r} needs an integer value") from exc
    return Requirement(key, op, values)


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """A ``metav1.LabelSelector``. The empty selector matches every object."""

    requirements: tuple[Requirement, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """True when every requirement holds for ``labels``."""
        return all(r.matches(labels) for r in self.requirements)

    @property
    def is_empty(self) -> bool:
        """The empty selector ``{}`` (matches everything)."""
        return not self.requirements

    @staticmethod
    def parse(raw: Any) -> LabelSelector | None:
        """Parse a selector; ``None`` (absent) stays ``None``, which matches nothing."""
        if raw is None:
            return None
        if not isinstance(raw, Mapping):
            raise SelectorError(f"label selector must be a mapping, got {raw!r}")
        reqs: list[Requirement] = []
        match_labels = raw.get("matchLabels") or {}
        if not isinstance(match_labels, Mapping):
            raise SelectorError("matchLabels must be a mapping")
        for key, val in match_labels.items():
            reqs.append(Requirement(str(key), "In", (str(val),)))
        for expr in raw.get("matchExpressions") or []:
            reqs.append(_requirement(expr, _SET_OPS))
        return LabelSelector(tuple(reqs))

    def with_extra(self, extra: tuple[Requirement, ...]) -> LabelSelector:
        """This selector plus more requirements (used for matchLabelKeys)."""
        return LabelSelector(self.requirements + extra)


@dataclass(frozen=True, slots=True)
class NodeSelectorTerm:
    """One term of a node selector: all expressions and fields must match."""

    match_expressions: tuple[Requirement, ...] = ()
    match_fields: tuple[Requirement, ...] = ()
    # Upstream builds a labels.Selector from matchExpressions (labels.NewRequirement
    # validates In/NotIn values as label values); on error the term matches no node. The
    # API server does not validate those values, so such pods exist. Upstream case:
    # node_affinity_test.go "Pod with an invalid value in Affinity term won't be scheduled
    # onto the node".
    unparsable: bool = False

    def matches(self, labels: Mapping[str, str], node_name: str) -> bool:
        """A term with no requirements at all matches no node, as upstream."""
        if self.unparsable or (not self.match_expressions and not self.match_fields):
            return False
        if not all(r.matches(labels) for r in self.match_expressions):
            return False
        fields = {"metadata.name": node_name}
        return all(r.matches(fields) for r in self.match_fields)

    @staticmethod
    def parse(raw: Any) -> NodeSelectorTerm:
        """Parse a ``NodeSelectorTerm`` mapping."""
        if raw is None:
            raw = {}
        if not isinstance(raw, Mapping):
            raise SelectorError(f"node selector term must be a mapping, got {raw!r}")
        exprs = tuple(_requirement(e, _NODE_OPS) for e in raw.get("matchExpressions") or [])
        fields = []
        for e in raw.get("matchFields") or []:
            req = _requirement(e, _NODE_OPS)
            if req.key != "metadata.name" or req.operator not in ("In", "NotIn"):
                raise SelectorError("matchFields supports only metadata.name with In/NotIn")
            fields.append(req)
        unparsable = any(not is_valid_label_value(v) for e in exprs
                         if e.operator in ("In", "NotIn") for v in e.values)
        return NodeSelectorTerm(exprs, tuple(fields), unparsable)


@dataclass(frozen=True, slots=True)
class NodeSelector:
    """``requiredDuringSchedulingIgnoredDuringExecution``: terms are ORed."""

    terms: tuple[NodeSelectorTerm, ...]

    def matches(self, labels: Mapping[str, str], node_name: str) -> bool:
        """True when any term matches."""
        return any(t.matches(labels, node_name) for t in self.terms)
