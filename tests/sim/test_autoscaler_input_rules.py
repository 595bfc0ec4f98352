"""The Cluster Autoscaler's inputs: its boolean flags (Go's ``strconv.ParseBool``), the
node-group annotations (docs/SIMULATOR.md "Cluster Autoscaler"; sizes are Go ints like
upstream's ``--nodes=MIN:MAX:NAME``), node-group shapes and the sanitized template
(``SanitizedTemplateNodeInfoFromNodeInfo``), and the option bounds."""

from __future__ import annotations

import pytest
from builders.autoscaler import group_node, run

from kubepreempt.api.errors import InputError, Source
from kubepreempt.api.objects import parse_node
from kubepreempt.sim.autoscaler import (
    GROUP,
    GROUP_MAX,
    GROUP_MIN,
    GROUP_PRIORITY,
    HOSTNAME,
    node_groups,
    parse_bool,
    sanitized_template,
)

SOURCE = Source("t.yaml", 0)


def node(name: str, annotations: dict[str, str], cpu: str = "2",
         labels: dict[str, str] | None = None, taints: list[dict] | None = None):
    raw = {"kind": "Node",
           "metadata": {"name": name, "labels": {HOSTNAME: name, **(labels or {})},
                        "annotations": annotations},
           "spec": {"taints": taints or []},
           "status": {"allocatable": {"cpu": cpu, "memory": "64Gi", "pods": "110"}}}
    return parse_node(raw, SOURCE)


def group(lo: str | None = None, hi: str | None = "3", prio: str | None = None,
          name: str = "pool") -> dict[str, str]:
    ann = {GROUP: name}
    for key, value in ((GROUP_MIN, lo), (GROUP_MAX, hi), (GROUP_PRIORITY, prio)):
        if value is not None:
            ann[key] = value
    return ann


def error(*nodes) -> str:
    with pytest.raises(InputError) as err:
        node_groups(list(nodes))
    return str(err.value)


# ---- strconv.ParseBool ----

@pytest.mark.parametrize("text", ["1", "t", "T", "TRUE", "true", "True"])
def test_go_true_spellings(text: str) -> None:
    """``strconv.ParseBool`` accepts exactly these for true."""
    assert parse_bool(text, "--flag") is True


@pytest.mark.parametrize("text", ["0", "f", "F", "FALSE", "false", "False"])
def test_go_false_spellings(text: str) -> None:
    """... and exactly these for false."""
    assert parse_bool(text, "--flag") is False


@pytest.mark.parametrize("text", ["tRUE", "yes", "", "2", "fALSE", " true"])
def test_anything_else_is_not_a_boolean(text: str) -> None:
    """``strconv.ParseBool`` returns a syntax error for any other string."""
    with pytest.raises(InputError) as err:
        parse_bool(text, "--skip-nodes-with-system-pods")
    assert str(err.value) == (f"--skip-nodes-with-system-pods: {text!r} is not a boolean "
                              "(true or false)")


# ---- node-group annotations ----

def test_a_group_from_one_node_with_defaults() -> None:
    """min defaults to 0 and the priority to 0; the first node is the template."""
    n1 = node("n1", group(hi="4"))
    g = node_groups([n1, node("m", {})])["pool"]
    assert (g.name, g.min_size, g.max_size, g.priority, g.template) == ("pool", 0, 4, 0, n1)
    assert list(node_groups([n1])) == ["pool"]


def test_sizes_and_priority_are_read_with_surrounding_blanks() -> None:
    g = node_groups([node("n1", group(lo=" 1 ", hi="+5", prio="-7 "))])["pool"]
    assert (g.min_size, g.max_size, g.priority) == (1, 5, -7)


def test_min_equal_to_max_is_a_fixed_size_group() -> None:
    g = node_groups([node("n1", group(lo="2", hi="2"))])["pool"]
    assert (g.min_size, g.max_size) == (2, 2)


def test_zero_sized_group_bounds_are_allowed() -> None:
    g = node_groups([node("n1", group(lo="0", hi="0"))])["pool"]
    assert (g.min_size, g.max_size) == (0, 0)


@pytest.mark.parametrize(("value", "ok"), [
    ("9223372036854775807", True), ("9223372036854775808", False),
    ("-9223372036854775808", True), ("-9223372036854775809", False)])
def test_priority_is_a_64_bit_go_int(value: str, ok: bool) -> None:
    """A Go ``int`` (64-bit) holds -2^63 .. 2^63-1."""
    n1 = node("n1", group(prio=value))
    if ok:
        assert node_groups([n1])["pool"].priority == int(value)
    else:
        assert error(n1) == (f"t.yaml, document 1: Node n1: annotation {GROUP_PRIORITY}: "
                             f"{value!r} is out of range (64-bit integer)")


@pytest.mark.parametrize("value", ["lots", "1.5", "--1", "-", "", "0x10", "1_000", "\u00b2"])
def test_a_size_that_is_not_an_integer(value: str) -> None:
    """``strconv.Atoi`` syntax: an optional sign and decimal digits, nothing else."""
    assert error(node("n1", group(hi=value))) == (
        f"t.yaml, document 1: Node n1: annotation {GROUP_MAX}: {value!r} is not an integer")


def test_empty_group_name() -> None:
    assert error(node("n1", group(name="  "))) == (
        f"t.yaml, document 1: Node n1: annotation {GROUP}: empty group name")


def test_max_is_required_on_the_first_node_only() -> None:
    assert error(node("n1", group(hi=None))) == (
        f"t.yaml, document 1: Node n1: annotation {GROUP_MAX} is required on a node of "
        "group 'pool'")
    g = node_groups([node("n1", group(hi="3")), node("n2", group(hi=None))])["pool"]
    assert g.max_size == 3


@pytest.mark.parametrize(("lo", "hi"), [("-1", "3"), ("0", "-1")])
def test_negative_sizes(lo: str, hi: str) -> None:
    assert error(node("n1", group(lo=lo, hi=hi))) == (
        "t.yaml, document 1: Node n1: node group 'pool': sizes must not be negative")


def test_min_above_max() -> None:
    assert error(node("n1", group(lo="4", hi="3"))) == (
        "t.yaml, document 1: Node n1: node group 'pool': min 4 is above max 3")


@pytest.mark.parametrize(("lo", "hi"), [("2", None), (None, "4"), ("0", "3")])
def test_a_later_node_must_agree_on_the_bounds(lo, hi) -> None:
    """A later node may leave min/max out, but one it gives must match the group's
    (min 1, max 3): min 0 written differs from 1."""
    first = node("n1", group(lo="1", hi="3"))
    assert error(first, node("n2", group(lo=lo, hi=hi))) == (
        "t.yaml, document 1: Node n2: node group 'pool': min/max differ from node n1's")


def test_a_later_node_agreeing_on_the_bounds() -> None:
    groups = node_groups([node("n1", group(lo="1", hi="3")), node("n2", group(lo="1", hi="3")),
                          node("n3", group(lo=None, hi=None))])
    assert groups["pool"].template.name == "n1"


# ---- the group's shape ----

SHAPE_ERROR = ("t.yaml, document 1: Node n2: node group 'pool': node differs in shape "
               "(allocatable, taints or labels) from n1")


@pytest.mark.parametrize(("kw", "same"), [
    ({"cpu": "4"}, False),
    ({"labels": {"zone": "b"}}, False),
    ({"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]}, False),
    ({"labels": {"zone": "a"}}, True),
    ({"taints": [{"key": "k", "value": "w", "effect": "NoSchedule"}]}, False),
    ({"taints": [{"key": "k", "value": "v", "effect": "NoExecute"}]}, False),
])
def test_nodes_of_a_group_share_allocatable_taints_and_labels(kw: dict, same: bool) -> None:
    """n1 has zone a and no taint; the hostname label is the only one allowed to differ
    (the template's is replaced, ``SanitizedTemplateNodeInfoFromNodeInfo``)."""
    n1 = node("n1", group(), labels={"zone": "a"})
    base = {"labels": {"zone": "a"}}
    n2 = node("n2", group(), **{**base, **kw})
    if same:
        assert node_groups([n1, n2])["pool"].template is n1
    else:
        assert error(n1, n2) == SHAPE_ERROR


def test_taint_order_does_not_matter_to_the_shape() -> None:
    a = {"key": "a", "value": "", "effect": "NoSchedule"}
    b = {"key": "b", "value": "", "effect": "NoExecute"}
    n1 = node("n1", group(), taints=[a, b])
    n2 = node("n2", group(), taints=[b, a])
    assert node_groups([n1, n2])["pool"].template is n1


# ---- the template ----

def test_sanitized_template_is_renamed_with_its_hostname() -> None:
    """``createSanitizedNode``: a new name (``template-node-for-<group>-<suffix>``) and
    the hostname label set to it; everything else is the template's."""
    n1 = node("n1", group(), labels={"zone": "a"},
              taints=[{"key": "k", "value": "", "effect": "NoSchedule"}])
    g = node_groups([n1])["pool"]
    t = sanitized_template(g, 3)
    assert t.name == "template-node-for-pool-3"
    assert t.labels == {HOSTNAME: "template-node-for-pool-3", "zone": "a"}
    assert t.taints == n1.taints and t.allocatable == n1.allocatable
    assert n1.labels[HOSTNAME] == "n1"


# ---- option bounds ----

@pytest.mark.parametrize(("options", "message"), [
    ({"provision_time": -1}, "--provision-time must be >= 0, not -1"),
    ({"scale_down_unneeded_time": -0.5}, "--scale-down-unneeded-time must be >= 0, not -0.5"),
    ({"scale_down_utilization_threshold": -0.01},
     "--scale-down-utilization-threshold must be within 0..1"),
    ({"scale_down_utilization_threshold": 1.01},
     "--scale-down-utilization-threshold must be within 0..1"),
    ({"expander": "cheapest"},
     "--expander must be one of random, least-waste, most-pods, priority, not 'cheapest'"),
])
def test_option_bounds(options: dict, message: str) -> None:
    with pytest.raises(InputError) as err:
        run(group_node("n1"), **options)
    assert str(err.value) == message


@pytest.mark.parametrize("options", [
    {"provision_time": 0}, {"scale_down_unneeded_time": 0},
    {"scale_down_utilization_threshold": 0}, {"scale_down_utilization_threshold": 1},
    {"expander": "random"}, {"expander": "most-pods"}, {"expander": "priority"}])
def test_option_bounds_are_inclusive(options: dict) -> None:
    assert run(group_node("n1"), until=60, **options).metrics["autoscaler"]["nodesAdded"] == 0
