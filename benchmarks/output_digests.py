"""Record, then compare, a digest of every bundled example's and scenario's ``-o json`` and
of every ``kubepreempt bench`` workload's decisions: a refactor must leave them identical.

    python benchmarks/output_digests.py record digests.json     # before
    python benchmarks/output_digests.py compare digests.json    # after: lists what differs

Outputs come from the installed ``kubepreempt`` command (one process per command, as a
user runs it); wall-clock figures (``seconds``, ``wallSeconds``, ``buildSeconds``,
``podsPerSecond``, ``peakRssMiB``, a sweep's ``elapsed``) and temporary file names are
left out. Bench workloads run in memory through ``workloads.run`` at ``--bench-scale``
(default 0.2) and are digested as every bound pod's node plus every victim in the order
evicted. ``--only`` limits the run to names containing a string; ``--skip-bench`` leaves
the workloads out.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "examples"
WALL_CLOCK = {"seconds", "wallSeconds", "buildSeconds", "podsPerSecond", "peakRssMiB",
              "elapsedSeconds", "elapsed"}
PATHS = {"results"}  # file names under a fresh temporary directory
# What every output says it modelled (release, gates): a label, not a decision.
LABELS = {"modelled"}
KUBEPREEMPT = str(Path(sys.executable).parent / "kubepreempt")


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items()
                if k not in WALL_CLOCK and k not in LABELS
                and not (k in PATHS and isinstance(v, str))}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _pending(path: Path) -> list[str]:
    from kubepreempt.cluster import build_cluster
    from kubepreempt.manifests import load_documents
    cluster = build_cluster(load_documents([str(path)]), warn=False)
    return sorted(cluster.pending)


def _kueue_subjects(path: Path) -> list[str]:
    """Every Workload and queued Job of a Kueue example, as ``NS/NAME``."""
    import yaml
    out = []
    for doc in yaml.safe_load_all(path.read_text()):
        if isinstance(doc, dict) and doc.get("kind") in ("Workload", "Job", "JobSet"):
            meta = doc.get("metadata") or {}
            out.append(f"{meta.get('namespace', 'default')}/{meta['name']}")
    return sorted(out)


def commands(tmp: str) -> Iterator[list[str]]:
    """Every command whose JSON output is digested."""
    for path in sorted((EX / "basic").glob("*.yaml")):
        for pod in _pending(path):
            yield ["schedule", str(path), "--pod", pod]
            yield ["schedule", str(path), "--pod", pod, "--explain"]
            yield ["advise", str(path), "--pod", pod]
    for path in sorted((EX / "kubelet").glob("*.yaml")):
        yield ["kubelet-admit", str(path)]
        for res in ("memory", "ephemeral-storage"):
            yield ["evict-rank", str(path), "--resource", res]
    sc = EX / "scheduler-config"
    for pod in _pending(sc / "cluster.yaml"):
        yield ["schedule", str(sc / "cluster.yaml"), "--pod", pod, "--explain"]
        for cfg in sorted(sc.glob("*.yaml")):
            if cfg.name != "cluster.yaml":
                yield ["schedule", str(sc / "cluster.yaml"), "--pod", pod,
                       "--scheduler-config", str(cfg), "--explain"]
    wi = EX / "whatif"
    for new in ("web.yaml", "train.yaml"):
        yield ["schedule", str(wi / "cluster.yaml"), "-f", str(wi / new)]
        yield ["advise", str(wi / "cluster.yaml"), "-f", str(wi / new)]
        yield ["advise", str(wi / "cluster.yaml"), "-f", str(wi / new), "--node-like", "node-a"]
    for path in sorted((EX / "kueue").glob("*.yaml")):
        for version in ("current", "v0.7"):
            for subject in _kueue_subjects(path):
                yield ["kueue", str(path), "--kueue-version", version, "--workload", subject,
                       "--explain"]
    for path in sorted((EX / "sim").glob("*.yaml")):
        for queue in ("1.36", "classic", "fifo"):
            if queue == "fifo" and path.name == "overprovisioning.yaml":
                continue  # pre-1.9 FIFO never drains this scenario (runs until --max-events)
            yield ["simulate", str(path), "--queue", queue, "--max-rows", "0"]
        yield ["simulate", str(path), "--kueue-version", "v0.7", "--max-rows", "0"]
        yield ["simulate", str(path), "--node-pressure", "--autoscale", "--max-rows", "0"]
        yield ["simulate", str(path), "--sample-nodes", "--controller-latency", "1s",
               "--latency", "20ms", "--max-rows", "0"]
    for path in sorted((EX / "sweep").glob("*.yaml")):
        if "kind: Sweep" in path.read_text():
            yield ["sweep", str(path), "-j", "1", "--fresh", "--no-progress",
                   "--results", f"{tmp}/{path.stem}.results.jsonl"]
    yield ["bench", "kueue-baseline", "--scale", "0.05", "--no-progress"]
    yield ["bench", "kueue-baseline", "--scale", "0.05", "--kueue-version", "v0.7",
           "--no-progress"]


def run_command(args: list[str]) -> str:
    """The digest of one command's JSON output (or of its error and exit status)."""
    try:
        proc = subprocess.run([KUBEPREEMPT, *args, "-o", "json"], capture_output=True,
                              text=True, cwd=ROOT, timeout=300)
    except subprocess.TimeoutExpired:
        return "timeout"
    # Absolute paths name the checkout: the same output from another worktree is equal.
    out, err = (text.replace(str(ROOT), "ROOT") for text in (proc.stdout, proc.stderr))
    if proc.returncode not in (0, 1):
        blob = f"exit {proc.returncode}: {err.strip()}"
    else:
        blob = json.dumps(_strip(json.loads(out)), sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def bench_digest(name: str, scale: float) -> str:
    """Every decision of one scheduler_perf workload: placements and victims in order."""
    from kubepreempt import workloads
    wl = workloads.get(name, scale)
    cluster = wl.build()
    victims: list[str] = []
    cls = type(cluster)  # slotted: the method is replaced on the class for this run
    remove = cls.remove

    def spy(self: Any, pod: Any, *a: Any, **kw: Any) -> Any:
        victims.append(pod.key)
        return remove(self, pod, *a, **kw)

    cls.remove = spy  # type: ignore[method-assign]
    try:
        stats = workloads.run(cluster, wl.arrivals(), keep_placements=True)
    finally:
        cls.remove = remove  # type: ignore[method-assign]
    h = hashlib.sha256()
    h.update(json.dumps(sorted(stats.placements.items())).encode())
    h.update(json.dumps(victims).encode())
    h.update(repr((stats.scheduled, stats.unschedulable, stats.preempted,
                   stats.victims)).encode())
    return h.hexdigest()[:16]


def collect(only: str | None, skip_bench: bool, scale: float) -> dict[str, str]:
    out: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for args in commands(tmp):
            key = " ".join(a.replace(str(ROOT) + "/", "").replace(tmp, "TMP") for a in args)
            if only and only not in key:
                continue
            out[key] = run_command(args)
            print(f"{out[key]}  {key}", file=sys.stderr)
    if not skip_bench:
        from kubepreempt import workloads
        for name in workloads.ALL_WORKLOADS:
            key = f"bench-decisions {name}@{scale}"
            if only and only not in key:
                continue
            out[key] = bench_digest(name, scale)
            print(f"{out[key]}  {key}", file=sys.stderr)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=("record", "compare"))
    ap.add_argument("file")
    ap.add_argument("--only")
    ap.add_argument("--skip-bench", action="store_true")
    ap.add_argument("--bench-scale", type=float, default=0.2)
    ns = ap.parse_args()
    got = collect(ns.only, ns.skip_bench, ns.bench_scale)
    if ns.mode == "record":
        Path(ns.file).write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
        print(f"{len(got)} digests written to {ns.file}")
        return 0
    want = json.loads(Path(ns.file).read_text())
    differ = [k for k in got if k in want and got[k] != want[k]]
    missing = [k for k in got if k not in want]
    for k in differ:
        print(f"DIFFERS  {k}")
    for k in missing:
        print(f"NEW      {k}")
    print(f"{len(got) - len(differ) - len(missing)} identical, {len(differ)} differ, "
          f"{len(missing)} not recorded")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
