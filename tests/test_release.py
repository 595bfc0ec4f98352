"""The release switch: Kubernetes 1.36 and 1.37, their kube-scheduler feature gates, the
``--kube-version`` / ``--feature-gates`` options and the ``modelled`` JSON key.

Expected gate states are upstream's: ``pkg/scheduler/features`` /
``pkg/features/kube_features.go`` of release-1.36 and release-1.37 (VersionedSpecs), and
kubernetes/kubernetes#139520 (GangScheduling, WorkloadAwarePreemption merged into
GenericWorkload in 1.37). Error wording is component-base ``featuregate.Set`` /
``unsafeSetFromMap``'s, wrapped as pflag wraps a flag's error.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubepreempt.api.errors import InputError
from kubepreempt.cli import main
from kubepreempt.decide import load_cluster, schedule
from kubepreempt.release import (
    ALPHA,
    BETA,
    DEFAULT,
    GA,
    MODELLED,
    RELEASES,
    SWITCHES,
    Release,
    modelled,
    nearest,
    parse_gates,
    release_for,
)

ROOT = Path(__file__).resolve().parent.parent
EX = ROOT / "examples"


def state(version: str, gate: str) -> tuple[str, bool, bool]:
    g = RELEASES[version].gates[gate]
    return g.stage, g.default, g.locked


# --- the gate tables, as upstream registers them ------------------------------------------

@pytest.mark.parametrize(("gate", "v136", "v137"), [
    ("GenericWorkload", (ALPHA, False, False), (BETA, False, False)),
    ("TopologyAwareWorkloadScheduling", (ALPHA, False, False), (ALPHA, False, False)),
    ("DRAWorkloadResourceClaims", (ALPHA, False, False), (BETA, False, False)),
    ("StorageCapacityScoring", (ALPHA, False, False), (BETA, True, False)),
    ("VolumeLimitScaling", (ALPHA, False, False), (BETA, True, False)),
    ("NodeDeclaredFeatures", (BETA, True, False), (GA, True, True)),
    ("DRAExtendedResource", (BETA, True, False), (GA, True, True)),
    ("SchedulerAsyncPreemption", (BETA, True, False), (BETA, True, False)),
    ("SchedulerPopFromBackoffQ", (BETA, True, False), (BETA, True, False)),
    ("TaintTolerationComparisonOperators", (ALPHA, False, False), (ALPHA, False, False)),
])
def test_gates_present_in_both_releases(gate, v136, v137) -> None:
    assert state("1.36", gate) == v136
    assert state("1.37", gate) == v137


@pytest.mark.parametrize("gate", ["PodGroupPreemptionPolicy", "CompositePodGroup",
                                  "InterPodAffinityHostnameFastPath",
                                  "SchedulerPreQueueingHints",
                                  "InPlacePodVerticalScalingSchedulerPreemption"])
def test_new_in_1_37_alpha_and_off(gate) -> None:
    assert state("1.37", gate) == (ALPHA, False, False)
    assert gate not in RELEASES["1.36"].gates


@pytest.mark.parametrize("gate", ["GangScheduling", "WorkloadAwarePreemption",
                                  "SchedulerQueueingHints"])
def test_gates_1_37_removed(gate) -> None:
    assert gate in RELEASES["1.36"].gates
    assert gate not in RELEASES["1.37"].gates


def test_gang_and_workload_preemption_are_switched_by_the_release_gate() -> None:
    r36, r37 = RELEASES["1.36"], RELEASES["1.37"]
    assert (r36.gang_scheduling_gate, r36.workload_preemption_gate) == (
        "GangScheduling", "WorkloadAwarePreemption")
    assert r37.gang_scheduling_gate == r37.workload_preemption_gate == "GenericWorkload"
    assert r36.workload_api == ("scheduling.k8s.io/v1alpha2",)
    assert r37.workload_api[0] == "scheduling.k8s.io/v1beta1"
    for version in MODELLED:  # off by default in both
        m = modelled(version)
        assert not m.gang_scheduling and not m.workload_aware_preemption
    on = modelled("1.37", "GenericWorkload=true", warn=False)
    assert on.gang_scheduling and on.workload_aware_preemption
    gang_only = modelled("1.36", "GenericWorkload=true,GangScheduling=true", warn=False)
    assert gang_only.gang_scheduling and not gang_only.workload_aware_preemption


def test_every_switch_names_an_attribute_and_its_upstream_change() -> None:
    fields = set(Release.__dataclass_fields__)
    for switch in SWITCHES:
        assert switch.name in fields and switch.upstream


# --- versions -------------------------------------------------------------------------------

def test_default_is_1_37_and_versions_parse_like_a_server_reports_them() -> None:
    assert DEFAULT.version == "1.37" and MODELLED == ("1.36", "1.37")
    for text in ("1.36", "v1.36", "1.36.3", "v1.36.0-rc.1"):
        assert release_for(text).version == "1.36"


@pytest.mark.parametrize("text", ["1.35", "1.38", "latest", "2"])
def test_unknown_version_is_one_line_listing_the_modelled(text) -> None:
    with pytest.raises(InputError) as exc:
        release_for(text)
    assert str(exc.value) == (f"--kube-version {text}: not a modelled Kubernetes release; "
                              "modelled: 1.36, 1.37")


@pytest.mark.parametrize(("server", "expected"), [
    ("1.35", "1.36"), ("1.30", "1.36"), ("1.38", "1.37"), ("1.40", "1.37"), ("2.0", "1.37")])
def test_nearest_modelled_release(server, expected) -> None:
    assert nearest(server) == expected


# --- --feature-gates, as kube-scheduler parses and checks it ---------------------------------

def test_gates_parse_as_component_base_does() -> None:
    assert parse_gates("A=true, B=0,,C=F") == {"A": True, "B": False, "C": False}


@pytest.mark.parametrize(("version", "text", "detail"), [
    ("1.37", "Foo=true", "unrecognized feature gate: Foo"),
    ("1.37", "GangScheduling=true", "unrecognized feature gate: GangScheduling"),
    ("1.37", "GenericWorkload", "missing bool value for GenericWorkload"),
    ("1.37", "GenericWorkload=yes", "invalid value of GenericWorkload=yes, err: "
     'strconv.ParseBool: parsing "yes": invalid syntax'),
    ("1.37", "NodeDeclaredFeatures=false", "cannot set feature gate NodeDeclaredFeatures to "
     "false, feature is locked to true"),
    ("1.36", "GangScheduling=true", "GangScheduling is enabled, but depends on features "
     "that are disabled: [GenericWorkload]"),
    ("1.36", "GenericWorkload=true,WorkloadAwarePreemption=true", "WorkloadAwarePreemption "
     "is enabled, but depends on features that are disabled: [GangScheduling]"),
])
def test_gate_errors_in_kube_scheduler_words(version, text, detail) -> None:
    with pytest.raises(InputError) as exc:
        modelled(version, text, warn=False)
    assert str(exc.value) == f'invalid argument "{text}" for "--feature-gates" flag: {detail}'


def test_modelled_json_names_the_gates_decided_with_and_the_ones_set(capsys) -> None:
    m = modelled("1.37", "StorageCapacityScoring=false")
    out = m.to_json(kueue="v0.7")
    assert out["kubernetes"] == "1.37" and out["kueue"] == "v0.7"
    # set by the user, though not modelled: named, with a warning saying so
    assert out["featureGates"]["StorageCapacityScoring"] is False
    assert "volumes are not modelled" in capsys.readouterr().err
    assert out["featureGates"]["GenericWorkload"] is False
    assert "DRAPrioritizedList" not in out["featureGates"]  # guards DRA: not listed


# --- the library and the CLI ----------------------------------------------------------------

def test_library_schedule_takes_a_release() -> None:
    cluster = load_cluster([str(EX / "basic")], warn=False)
    d37 = schedule(cluster, "shop/checkout")
    d36 = schedule(cluster, "shop/checkout", release="1.36")
    assert d37.modelled.version == "1.37" and d36.modelled.version == "1.36"
    assert d36 == d37 and (d36.node, d36.victims) == ("node-b", ["jobs/batch-2"])
    with pytest.raises(InputError):
        schedule(cluster, "shop/checkout", release="1.35")


def run(capsys, *args: str) -> tuple[int, dict, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, (json.loads(out.out) if code == 0 else {}), out.err


BASIC = str(EX / "basic")
WHATIF = EX / "whatif"
KUBELET = str(EX / "kubelet" / "critical-admission.yaml")
# One of each deciding command over the bundled examples.
COMMANDS = [
    ["schedule", BASIC, "--pod", "shop/checkout", "--explain"],
    ["schedule", str(WHATIF / "cluster.yaml"), "-f", str(WHATIF / "web.yaml"), "--explain"],
    ["advise", BASIC, "--pod", "shop/checkout"],
    ["advise", str(WHATIF / "cluster.yaml"), "-f", str(WHATIF / "train.yaml")],
    ["simulate", str(EX / "sim" / "cascade.yaml"), "--max-rows", "0"],
    ["simulate", str(EX / "sim" / "kueue-reclaim.yaml"), "--max-rows", "0"],
    ["kueue", str(EX / "kueue" / "classic.yaml"), "--workload", "team-a/training", "--explain"],
    ["kubelet-admit", KUBELET, "--pod", "kube-system/static-agent", "--node", "worker-1"],
    ["evict-rank", KUBELET, "--node", "worker-1"],
    ["bench", "PreemptionBasic/1000Nodes", "--scale", "0.02", "--no-progress"],
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:1] + a[2:3]))
def test_both_releases_decide_the_examples_identically(capsys, args) -> None:
    results = {}
    for version in MODELLED:
        code, out, err = run(capsys, *args, "-o", "json", "--kube-version", version)
        assert code == 0, err
        assert out["modelled"]["kubernetes"] == version
        results[version] = out
    default_code, default, _ = run(capsys, *args, "-o", "json")
    assert default_code == 0 and default["modelled"]["kubernetes"] == "1.37"
    for out in (*results.values(), default):
        out.pop("modelled")
        for key in ("seconds", "podsPerSecond", "peakRssMiB"):  # bench's wall clock
            out.pop(key, None)
    assert results["1.36"] == results["1.37"] == default


def test_kueue_outputs_name_the_kueue_release(capsys) -> None:
    _, out, _ = run(capsys, "kueue", str(EX / "kueue" / "classic.yaml"), "--workload",
                    "team-a/training", "-o", "json", "--kueue-version", "v0.7")
    assert out["modelled"]["kueue"] == "v0.7"
    _, out, _ = run(capsys, "simulate", str(EX / "sim" / "kueue-reclaim.yaml"), "-o", "json")
    # The default Kueue release is named (0.20: upstream main after v0.19.2).
    assert out["modelled"]["kueue"].startswith("v0.20")
    _, out, _ = run(capsys, "simulate", str(EX / "sim" / "cascade.yaml"), "-o", "json")
    assert "kueue" not in out["modelled"]  # no Kueue objects: Kueue decided nothing


@pytest.mark.parametrize("command", [
    ["schedule", BASIC, "--pod", "shop/checkout"],
    ["advise", BASIC, "--pod", "shop/checkout"],
    ["simulate", str(EX / "sim" / "cascade.yaml")],
    ["sweep", str(EX / "sweep" / "batch-priority.yaml")],
    ["bench", "PreemptionBasic/1000Nodes"],
    ["kubelet-admit", KUBELET, "--pod", "kube-system/static-agent", "--node", "worker-1"],
    ["evict-rank", KUBELET, "--node", "worker-1"],
    ["kueue", str(EX / "kueue" / "classic.yaml"), "--workload", "team-a/training"],
    ["watch"],
])
def test_every_deciding_command_refuses_an_unmodelled_release_in_one_line(capsys,
                                                                           command) -> None:
    code = main([*command, "--kube-version", "1.35"])
    err = capsys.readouterr().err
    assert code == 2
    assert err == ("error: --kube-version 1.35: not a modelled Kubernetes release; "
                   "modelled: 1.36, 1.37\n")
    code = main([*command, "--kube-version", "1.37", "--feature-gates", "Nope=true"])
    err = capsys.readouterr().err
    assert code == 2
    assert err == ('error: invalid argument "Nope=true" for "--feature-gates" flag: '
                   "unrecognized feature gate: Nope\n")


def test_version_json_names_the_default_release(capsys) -> None:
    code, out, _ = run(capsys, "version", "-o", "json")
    assert code == 0
    assert out["modelled"]["kubernetes"] == "1.37" and out["kubeVersions"] == ["1.36", "1.37"]
    assert main(["version"]) == 0
    assert capsys.readouterr().out.strip() == out["kubepreempt"]
    code, out, _ = run(capsys, "version", "-o", "json", "--kube-version", "1.36")
    assert code == 0 and out["modelled"]["kubernetes"] == "1.36"
    assert out["modelled"]["featureGates"]["WorkloadAwarePreemption"] is False
