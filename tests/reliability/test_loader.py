"""One loader for every command: malformed documents are one-line errors (exit 2) naming
the file, the document (counted from 1), the kind and the object."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from kubepreempt.api.quantity import QuantityError, canonical, parse_quantity
from kubepreempt.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
COMMANDS = {
    "schedule": ("basic/cluster.yaml", ["--pod", "shop/checkout"]),
    "kueue": ("kueue/classic.yaml", ["--workload", "team-a/training"]),
    "kubelet-admit": ("kubelet/critical-admission.yaml",
                      ["--pod", "kube-system/static-agent", "--node", "worker-1"]),
    "evict-rank": ("kubelet/seed-2gb-after.yaml", ["--node", "node-2gb"]),
    "simulate": ("sim/design-doc-example-4.yaml", []),
}
BAD_POD = "---\napiVersion: v1\nkind: Pod\nmetadata: {meta}\nspec: {{containers: [{{name: c}}]}}\n"


def run(capsys, command: str, path: Path, extra: list[str]) -> tuple[int, str, str]:
    code = main([command, str(path), *extra, "-o", "json"])
    out, err = capsys.readouterr()
    return code, out, err


def with_extra(tmp_path: Path, command: str, extra_doc: str) -> tuple[Path, int, list[str]]:
    example, args = COMMANDS[command]
    text = (EXAMPLES / example).read_text()
    documents = sum(1 for part in text.split("\n---\n") if "kind:" in part)
    path = tmp_path / "in.yaml"
    path.write_text(text.rstrip() + "\n" + extra_doc)
    return path, documents + 1, args


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("meta,what", [("a-string", "a string"), ("42", "a number"),
                                       ("[x, y]", "a list"), ("true", "a boolean")])
def test_non_mapping_metadata_is_one_line_exit_2(capsys, tmp_path, command, meta, what):
    path, index, args = with_extra(tmp_path, command, BAD_POD.format(meta=meta))
    code, _, err = run(capsys, command, path, args)
    assert code == 2
    assert err == f"error: {path}, document {index}: Pod: metadata must be an object, not " \
                  f"{what}\n"


@pytest.mark.parametrize("command", [c for c in COMMANDS if c != "kueue"])
@pytest.mark.parametrize("cpu", ["1e30", "100000000000000000000000000000"])
def test_quantity_beyond_int64_is_refused(capsys, tmp_path, command, cpu):
    doc = BAD_POD.format(meta="{name: huge, namespace: default}").replace(
        "[{name: c}]", f"[{{name: c, resources: {{requests: {{cpu: '{cpu}'}}}}}}]")
    path, index, args = with_extra(tmp_path, command, doc)
    code, _, err = run(capsys, command, path, args)
    assert code == 2 and err.count("\n") == 1
    assert err.startswith(f"error: {path}, document {index}: Pod default/huge: ")
    assert "beyond the int64 range" in err


@pytest.mark.parametrize("cpu", ["1e30", "100000000000000000000000000000"])
def test_kueue_quantity_beyond_int64_is_refused(capsys, tmp_path, cpu):
    text = (EXAMPLES / "kueue/classic.yaml").read_text()
    first = text.index('cpu: "1"')  # the first Workload's pod request
    path = tmp_path / "in.yaml"
    path.write_text(text[:first] + f'cpu: "{cpu}"' + text[first + len('cpu: "1"'):])
    code, _, err = run(capsys, "kueue", path, COMMANDS["kueue"][1])
    # One error line (after the warnings that the example's v1beta1 objects are converted).
    errors = [line for line in err.splitlines() if not line.startswith("warning: ")]
    assert code == 2 and len(errors) == 1
    err = errors[0]
    assert err.startswith(f"error: {path}, document ") and ": Workload " in err
    assert "beyond the int64 range" in err


def test_binary_quantities_are_capped_at_int64_as_parse_quantity_does():
    # resource.ParseQuantity caps BinarySI amounts above int64 at math.MaxInt64.
    assert parse_quantity("9Ei") == Fraction((1 << 63) - 1)
    assert canonical("memory", "9Ei") == (1 << 63) - 1
    assert canonical("memory", "7Ei") == 7 << 60
    with pytest.raises(QuantityError, match="beyond the int64 range"):
        canonical("cpu", "9Ei")  # MilliValue of the cap overflows
    with pytest.raises(QuantityError, match="beyond the int64 range"):
        canonical("memory", "1e19")  # DecimalSI amounts are not capped
    assert canonical("memory", str((1 << 63) - 1)) == (1 << 63) - 1


def test_alias_bomb_is_refused_quickly(capsys, tmp_path):
    lines = ["    a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"    a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 9) + "]" for n in range(1, 12)]
    bomb = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: bomb\n  annotations:\n"
            + "\n".join(lines) + "\n  labels: *a11\n")
    path, _, args = with_extra(tmp_path, "schedule", "---\n" + bomb)
    code, _, err = run(capsys, "schedule", path, args)
    assert code == 2
    assert err == f"error: {path}: malformed YAML: document contains excessive aliasing\n"


def test_a_few_aliases_are_fine(capsys, tmp_path):
    doc = ("---\napiVersion: v1\nkind: Pod\nmetadata: {name: twin, namespace: shop, "
           "labels: &l {app: twin}}\nspec:\n  nodeSelector: *l\n  containers: [{name: c}]\n")
    path, _, args = with_extra(tmp_path, "schedule", doc)
    code, _, err = run(capsys, "schedule", path, args)
    assert code == 0, err


def test_deep_nesting_is_one_line(capsys, tmp_path):
    doc = "---\napiVersion: v1\nkind: Pod\nmetadata: {name: deep}\nspec: " + "[" * 50000 \
          + "]" * 50000 + "\n"
    path, _, args = with_extra(tmp_path, "schedule", doc)
    code, _, err = run(capsys, "schedule", path, args)
    assert code == 2 and err.count("\n") == 1 and str(path) in err


def test_list_items_are_numbered_from_one(capsys, tmp_path):
    path = tmp_path / "list.yaml"
    path.write_text("apiVersion: v1\nkind: List\nitems:\n"
                    "- {apiVersion: v1, kind: Node, metadata: {name: a}}\n"
                    "- {apiVersion: v1, kind: Node, metadata: {name: B}}\n")
    code, _, err = run(capsys, "schedule", path, ["--pod", "default/p"])
    assert code == 2
    assert err.startswith(f"error: {path}, document 1, item 2: Node B: Node \"B\" is "
                          "invalid: metadata.name: Invalid value: \"B\": a lowercase RFC 1123 "
                          "subdomain must consist of lower case alphanumeric characters")


def test_truncated_utf8_is_one_line(capsys, tmp_path):
    path = tmp_path / "cut.yaml"
    path.write_bytes("kind: Node\nmetadata: {name: n, labels: {a: ü}}\n".encode()[:-5])
    code, _, err = run(capsys, "schedule", path, ["--pod", "default/p"])
    assert code == 2 and err.count("\n") == 1 and str(path) in err
