"""`kubepreempt schedule` on a dump vs just parsing it (issue 6 item 3; target <= 1.5x).

    python benchmarks/gen_dump.py -o /tmp/dump.json
    python benchmarks/gen_dump.py -o /tmp/dump.yaml
    python benchmarks/bench_cli.py /tmp/dump.json /tmp/dump.yaml
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import orjson
import yaml


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main() -> None:
    exe = str(Path(sys.executable).with_name("kubepreempt"))
    for path in sys.argv[1:]:
        data = Path(path).read_bytes()
        if path.endswith(".json"):
            parse = timed(lambda d=data: orjson.loads(d))
        else:
            parse = timed(lambda d=data: yaml.load(d, Loader=yaml.CSafeLoader))
        cmd = [exe, "schedule", path, "--pod", "default/pending", "-o", "json"]
        cli = timed(lambda c=cmd: subprocess.run(c, check=True, capture_output=True))
        print(f"{path}: parse {parse:.2f} s, kubepreempt schedule {cli:.2f} s, "
              f"ratio {cli / parse:.2f}x")


if __name__ == "__main__":
    main()
