"""Loading returns its warnings; the callers print them (same lines, same order)."""

from __future__ import annotations

from builders import docs_of, node, pod

from kubepreempt.loader import build_cluster, build_with_warnings

SKIPPED = "warning: skipped objects of kinds kubepreempt does not use here: 2 ConfigMap"
FINISHED = ("warning: ignored 1 finished pod(s) (phase Succeeded/Failed), as the scheduler "
            "does")


def inputs():
    done = pod("done", node_name="n1", status_extra={"phase": "Succeeded"})
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c",
                                                                   "namespace": "default"}}
    other = {**config, "metadata": {"name": "d", "namespace": "default"}}
    return docs_of(node("n1"), config, pod("p"), done, other)


def test_loading_returns_the_warnings_and_prints_nothing(capsys) -> None:
    cluster, warnings = build_with_warnings(inputs())
    assert warnings == [SKIPPED, FINISHED]
    assert sorted(cluster.pending) == ["default/p"] and not cluster.pods
    assert capsys.readouterr().err == ""


def test_extra_kinds_are_not_warned_about() -> None:
    _, warnings = build_with_warnings(inputs(), extra_kinds=("ConfigMap",))
    assert warnings == [FINISHED]


def test_build_cluster_prints_them_in_order_when_asked(capsys) -> None:
    build_cluster(inputs())
    assert capsys.readouterr().err == f"{SKIPPED}\n{FINISHED}\n"
    build_cluster(inputs(), warn=False)
    assert capsys.readouterr().err == ""


def test_the_schedule_command_prints_them_on_stderr(tmp_path, capsys) -> None:
    import yaml

    from kubepreempt.cli import main

    path = tmp_path / "in.yaml"
    docs = [node("n1"), pod("p"),
            {"apiVersion": "v1", "kind": "ConfigMap",
             "metadata": {"name": "c", "namespace": "default"}}]
    path.write_text(yaml.safe_dump_all(docs))
    main(["schedule", str(path), "--pod", "p", "-o", "json"])
    err = capsys.readouterr().err
    assert err == ("warning: skipped objects of kinds kubepreempt does not use here: "
                   "1 ConfigMap\n")


def test_the_cluster_module_names_the_configuration_kind_the_scheduler_parses() -> None:
    from kubepreempt.cluster import SCHEDULER_CONFIG_KIND, SCHEDULER_KINDS
    from kubepreempt.scheduler.config import KIND

    assert SCHEDULER_CONFIG_KIND == KIND and KIND in SCHEDULER_KINDS
