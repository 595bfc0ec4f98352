"""One wording for every validator: the loader, kube-scheduler's ``--config`` and Kueue.

Messages worked out from k8s.io/apimachinery 1.36: ``pkg/api/validate/content`` for label
keys and values (``MaxLenError``: "must be no more than 63 bytes"; ``IsLabelKey``'s
"a valid label key" for more than one '/'; an empty name part fails the emptiness and the
regex check) and ``pkg/util/validation`` for object names and namespaces
(``IsDNS1123Label``: "must be no more than 63 characters", "must not contain dots").
"""

from __future__ import annotations

from pathlib import Path

from kubepreempt.cli import main
from kubepreempt.scheduler.config.validation import validate_fit

NODE = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n" \
       "status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n"
POD = "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec: {}\n"
NAME_REGEX = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and "
              "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "
              "'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?"
              "[A-Za-z0-9]')")
FIT_ARGS = {"scoringStrategy": {"type": "LeastAllocated"}}


def load_error(capsys, tmp_path: Path, text: str) -> str:
    path = tmp_path / "in.yaml"
    path.write_text(text)
    assert main(["schedule", str(path), "--pod", "default/p", "-o", "json"]) == 2
    return capsys.readouterr().err


def test_label_value_too_long_is_counted_in_bytes(capsys, tmp_path) -> None:
    value = "a" * 64
    err = load_error(capsys, tmp_path,
                     NODE.replace("{name: n1}", f"{{name: n1, labels: {{k: {value}}}}}") + POD)
    assert (f'Node "n1" is invalid: metadata.labels: Invalid value: "{value}": must be no '
            "more than 63 bytes\n") in err


def test_label_key_name_part_too_long_is_counted_in_bytes(capsys, tmp_path) -> None:
    key = "k" * 64
    err = load_error(capsys, tmp_path,
                     NODE.replace("{name: n1}", f"{{name: n1, labels: {{{key}: v}}}}") + POD)
    assert (f'Node "n1" is invalid: metadata.labels: Invalid value: "{key}": name part must be '
            "no more than 63 bytes\n") in err


def test_namespace_with_dots_is_not_a_dns_label(capsys, tmp_path) -> None:
    err = load_error(capsys, tmp_path, NODE + POD.replace("namespace: default", "namespace: a.b"))
    assert 'Pod "p" is invalid: metadata.namespace: Invalid value: "a.b": must not contain dots' \
        in err


def test_container_name_too_long_keeps_characters(capsys, tmp_path) -> None:
    name = "c" * 64
    err = load_error(capsys, tmp_path,
                     NODE + POD.replace("spec: {}", f"spec: {{containers: [{{name: {name}}}]}}"))
    assert (f'spec.containers[0].name: Invalid value: "{name}": must be no more than 63 '
            "characters\n") in err


def test_scheduler_config_label_names_share_the_wording() -> None:
    long_name = "r" * 64
    assert validate_fit("", {**FIT_ARGS, "ignoredResources": [long_name]}) == [
        f'ignoredResources[0]: Invalid value: "{long_name}": name part must be no more than '
        "63 bytes"]
    assert validate_fit("", {**FIT_ARGS, "ignoredResources": ["a/b/c"]}) == [
        'ignoredResources[0]: Invalid value: "a/b/c": a valid label key ' + NAME_REGEX
        + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    assert validate_fit("", {**FIT_ARGS, "ignoredResources": ["example.com/"]}) == [
        'ignoredResources[0]: Invalid value: "example.com/": name part must be non-empty',
        'ignoredResources[0]: Invalid value: "example.com/": name part ' + NAME_REGEX]
    # Too long and of the wrong form: both messages, as IsLabelKey checks both.
    bad = "-" + "r" * 63
    assert validate_fit("", {**FIT_ARGS, "ignoredResources": [bad]}) == [
        f'ignoredResources[0]: Invalid value: "{bad}": name part must be no more than 63 bytes',
        f'ignoredResources[0]: Invalid value: "{bad}": name part ' + NAME_REGEX]
