"""Objects kube-apiserver 1.36 refuses are refused, in its words, by every command.

Expected messages are worked out from pkg/apis/core/validation/validation.go
(validateNodeTaints, ValidateTolerations, validateTopologySpreadConstraints,
ValidateNodeSelectorRequirement, ValidatePreferredSchedulingTerms,
ValidateContainerResourceRequirements, ValidateResourceQuantityValue), apimachinery's
util/validation (IsQualifiedName, IsValidLabelValue) and field.Error.ErrorBody.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kubepreempt.cli import main

NODE = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n" \
       "status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n"


def pod(spec: str, name: str = "p") -> str:
    return (f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default}}\n"
            f"spec:\n  containers: [{{name: c}}]\n{spec}")


def run(capsys, tmp_path: Path, text: str, *args: str) -> tuple[int, str, str]:
    path = tmp_path / "in.yaml"
    path.write_text(text)
    code = main(["schedule", str(path), "--pod", "default/p", "-o", "json", *args])
    out, err = capsys.readouterr()
    return code, err, str(path)


CASES = {
    # The example: two taints with one key and effect.
    "duplicate-taint": (
        "apiVersion: v1\nkind: Node\nmetadata: {name: n3}\nspec:\n  taints:\n"
        "  - {key: dedicated, value: a, effect: NoSchedule}\n"
        "  - {key: dedicated, value: b, effect: NoSchedule}\n" + pod(""),
        1, 'Node n3: Node "n3" is invalid: metadata.taints[1]: Duplicate value: '
           '{"Key":"dedicated","Value":"b","Effect":"NoSchedule","TimeAdded":null}: taints '
           "must be unique by key and effect pair"),
    "taint-effect": (
        "apiVersion: v1\nkind: Node\nmetadata: {name: n3}\nspec:\n  taints:\n"
        "  - {key: dedicated, effect: Sometimes}\n" + pod(""),
        1, 'Node "n3" is invalid: metadata.taints[0].effect: Unsupported value: "Sometimes": '
           'supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"'),
    "taint-no-effect": (
        "apiVersion: v1\nkind: Node\nmetadata: {name: n3}\nspec:\n  taints:\n"
        "  - {key: dedicated}\n" + pod(""),
        1, 'Node "n3" is invalid: metadata.taints[0].effect: Required value'),
    "exists-with-value": (
        NODE + pod("  tolerations: [{key: k, operator: Exists, value: v}]\n"),
        2, 'Pod default/p: Pod "p" is invalid: spec.tolerations[0].operator: Invalid value: '
           '{"Key":"k","Operator":"Exists","Value":"v","Effect":"","TolerationSeconds":null}: '
           "value must be empty when `operator` is 'Exists'"),
    "empty-key-equal": (
        NODE + pod("  tolerations: [{operator: Equal, value: v}]\n"),
        2, 'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists '
           'when `key` is empty, which means "match all values and all keys"'),
    "toleration-seconds": (
        NODE + pod("  tolerations: [{key: k, operator: Exists, effect: NoSchedule, "
                   "tolerationSeconds: 5}]\n"),
        2, "spec.tolerations[0].effect: Invalid value: \"NoSchedule\": effect must be "
           "'NoExecute' when `tolerationSeconds` is set"),
    "label-key": (
        NODE.replace("{name: n1}", "{name: n1, labels: {'-bad': x}}") + pod(""),
        1, 'Node "n1" is invalid: metadata.labels: Invalid value: "-bad": name part must '
           "consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
           "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
           "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
    "label-value": (
        NODE + pod("  nodeSelector: {zone: 'a b'}\n"),
        2, 'spec.nodeSelector: Invalid value: "a b": a valid label must be an empty string or '
           "consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
           "an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex "
           "used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),
    "negative-request": (
        NODE + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
        "  - {name: c, resources: {requests: {cpu: '-1'}}}\n",
        2, 'spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater '
           "than or equal to 0"),
    "request-over-limit": (
        NODE + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
        "  - {name: c, resources: {requests: {memory: 2Gi}, limits: {memory: 1Gi}}}\n",
        2, 'spec.containers[0].resources.requests[memory]: Invalid value: "2Gi": must be less '
           "than or equal to memory limit of 1Gi"),
    "resource-name": (
        NODE + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
        "  - {name: c, resources: {requests: {gpu: '1'}}}\n",
        2, 'spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a '
           "standard resource for containers"),
    "fractional-pods": (
        NODE.replace("pods: '110'", "pods: 1500m") + pod(""),
        1, 'status.allocatable.pods: Invalid value: "1500m": must be an integer'),
    "max-skew": (
        NODE + pod("  topologySpreadConstraints:\n  - {maxSkew: 0, topologyKey: zone, "
                   "whenUnsatisfiable: DoNotSchedule}\n"),
        2, "spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than "
           "zero"),
    "spread-duplicate": (
        NODE + pod("  topologySpreadConstraints:\n"
                   "  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}\n"
                   "  - {maxSkew: 2, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}\n"),
        2, "spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate "
           'value: "{zone, DoNotSchedule}"'),
    "min-domains-schedule-anyway": (
        NODE + pod("  topologySpreadConstraints:\n  - {maxSkew: 1, topologyKey: zone, "
                   "whenUnsatisfiable: ScheduleAnyway, minDomains: 2}\n"),
        2, "spec.topologySpreadConstraints[0].minDomains: Invalid value: 2: can only use "
           "minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway"),
    "min-domains-zero": (
        NODE + pod("  topologySpreadConstraints:\n  - {maxSkew: 1, topologyKey: zone, "
                   "whenUnsatisfiable: DoNotSchedule, minDomains: 0}\n"),
        2, "spec.topologySpreadConstraints[0].minDomains: Invalid value: 0: must be greater "
           "than zero"),
    "affinity-operator": (
        NODE + pod("  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnored"
                   "DuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions:"
                   " [{key: zone, operator: Near, values: [a]}]\n"),
        2, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
           'nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: "Near": not a '
           "valid selector operator"),
    "affinity-in-without-values": (
        NODE + pod("  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnored"
                   "DuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions:"
                   " [{key: zone, operator: In}]\n"),
        2, "nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified "
           "when `operator` is 'In' or 'NotIn'"),
    # Gt/Lt exist for node selectors only (ValidateLabelSelectorRequirement refuses them).
    "label-selector-gt": (
        NODE + pod("  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnored"
                   "DuringExecution:\n      - topologyKey: zone\n        labelSelector:\n"
                   "          matchExpressions: [{key: size, operator: Gt, values: ['1']}]\n"),
        2, "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
           '.labelSelector.matchExpressions[0].operator: Invalid value: "Gt": not a valid '
           "selector operator"),
    "affinity-gt-two-values": (
        NODE + pod("  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnored"
                   "DuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions:"
                   " [{key: cores, operator: Gt, values: ['1', '2']}]\n"),
        2, "nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be "
           "specified single value when `operator` is 'Lt' or 'Gt'"),
    # validateNodeFieldSelectorRequirement: metadata.name only, In/NotIn with one value,
    # each value a node name (a DNS subdomain).
    "match-fields-key": (
        NODE + pod("  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnored"
                   "DuringExecution:\n        nodeSelectorTerms:\n        - matchFields:"
                   " [{key: metadata.uid, operator: In, values: [n1]}]\n"),
        2, "nodeSelectorTerms[0].matchFields[0].key: Invalid value: \"metadata.uid\": not a "
           "valid field selector key"),
    "match-fields-two-values": (
        NODE + pod("  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnored"
                   "DuringExecution:\n        nodeSelectorTerms:\n        - matchFields:"
                   " [{key: metadata.name, operator: NotIn, values: [n1, n2]}]\n"),
        2, "nodeSelectorTerms[0].matchFields[0].values: Required value: must be only one "
           "value when `operator` is 'In' or 'NotIn' for node field selector"),
    "match-fields-exists": (
        NODE + pod("  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnored"
                   "DuringExecution:\n        nodeSelectorTerms:\n        - matchFields:"
                   " [{key: metadata.name, operator: Exists}]\n"),
        2, "nodeSelectorTerms[0].matchFields[0].operator: Invalid value: \"Exists\": not a "
           "valid selector operator"),
    "match-fields-bad-name": (
        NODE + pod("  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnored"
                   "DuringExecution:\n        nodeSelectorTerms:\n        - matchFields:"
                   " [{key: metadata.name, operator: In, values: [Node_1]}]\n"),
        2, "nodeSelectorTerms[0].matchFields[0].values[0]: Invalid value: \"Node_1\": a "
           "lowercase RFC 1123 subdomain must consist of"),
    "affinity-no-terms": (
        NODE + pod("  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnored"
                   "DuringExecution:\n        nodeSelectorTerms: []\n"),
        2, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
           "nodeSelectorTerms: Required value: must have at least one node selector term"),
    "affinity-weight": (
        NODE + pod("  affinity:\n    podAntiAffinity:\n      preferredDuringScheduling"
                   "IgnoredDuringExecution:\n      - weight: 101\n        podAffinityTerm: "
                   "{topologyKey: zone, labelSelector: {matchLabels: {a: b}}}\n"),
        2, "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]"
           ".weight: Invalid value: 101: must be in the range 1-100"),
    "priority-class-value": (
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: top}\n"
        "value: 1000000001\n---\n" + NODE + pod(""),
        1, 'PriorityClass top: PriorityClass.scheduling.k8s.io "top" is invalid: value: '
           "Forbidden: maximum allowed value of a user defined priority is 1000000000"),
    "priority-int32": (
        NODE + pod("  priority: 4294967296\n"),
        2, "spec.priority: Invalid type: 4294967296 does not fit in a 32-bit integer"),
    "pdb-both": (
        NODE + pod("") + "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\n"
        "metadata: {name: b}\nspec: {minAvailable: 1, maxUnavailable: 1}\n",
        3, 'PodDisruptionBudget.policy "b" is invalid: spec: Invalid value: {}: minAvailable '
           "and maxUnavailable cannot be both set"),
}


@pytest.mark.parametrize("text,document,message", CASES.values(), ids=CASES)
def test_apiserver_rejections(capsys, tmp_path, text: str, document: int,
                              message: str) -> None:
    code, err, path = run(capsys, tmp_path, text)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith(f"error: {path}, document {document}: ")
    assert message in err


def test_several_errors_are_aggregated_in_brackets(capsys, tmp_path) -> None:
    # ErrorList.ToAggregate: more than one error prints as [e1, e2].
    text = NODE + pod("  tolerations:\n  - {key: k, operator: Exists, value: v}\n"
                      "  - {key: k, operator: Sometimes}\n")
    code, err, _ = run(capsys, tmp_path, text)
    assert code == 2
    assert ('Pod "p" is invalid: [spec.tolerations[0].operator: Invalid value: {"Key":"k",'
            in err)
    assert (', spec.tolerations[1].operator: Unsupported value: "Sometimes": supported values: '
            '"Equal", "Exists"]' in err)


def test_valid_objects_pass(capsys, tmp_path) -> None:
    text = (NODE.replace("{name: n1}", "{name: n1, labels: {example.com/zone: a-1}}")
            + "spec:\n  taints:\n  - {key: dedicated, value: a, effect: NoSchedule}\n"
            "  - {key: dedicated, value: a, effect: NoExecute}\n"
            + pod("  tolerations: [{operator: Exists}, {key: dedicated, operator: Exists}]\n"
                  "  nodeSelector: {example.com/zone: a-1}\n"
                  "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnored"
                  "DuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions:"
                  " [{key: cores, operator: Lt, values: ['9']}]\n"
                  "          matchFields: [{key: metadata.name, operator: In, values: [n1]}]\n"))
    code, err, _ = run(capsys, tmp_path, text)
    assert code == 0, err
