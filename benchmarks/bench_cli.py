"""`kubepreempt schedule` on a dump vs just parsing it, as whole processes (issue 15 item 3).

    python benchmarks/gen_dump.py -o /tmp/dump.json
    python benchmarks/gen_dump.py -o /tmp/dump.yaml
    python benchmarks/bench_cli.py /tmp/dump.json /tmp/dump.yaml [--runs 3]

Both sides are fresh interpreters (start-up, imports and exit included): the baseline reads
the file and parses it (orjson for JSON, PyYAML's C loader for YAML) and exits normally;
the CLI decides where ``default/pending`` goes. Best of ``--runs``, alternating, so a
shared machine's load hits both alike. Targets: JSON within 1.5x, YAML within 1.0x.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

PARSE = {
    ".json": "import orjson, sys; orjson.loads(open(sys.argv[1], 'rb').read())",
    ".yaml": "import yaml, sys; list(yaml.load_all(open(sys.argv[1], 'rb').read(), "
             "Loader=yaml.CSafeLoader))",
}


def timed(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    exe = str(Path(sys.executable).with_name("kubepreempt"))
    for path in args.paths:
        parse_cmd = [sys.executable, "-c", PARSE[Path(path).suffix], path]
        cli_cmd = [exe, "schedule", path, "--pod", "default/pending", "-o", "json"]
        parse = cli = float("inf")
        for _ in range(args.runs):
            parse = min(parse, timed(parse_cmd))
            cli = min(cli, timed(cli_cmd))
        print(f"{path}: parse process {parse:.2f} s, kubepreempt schedule {cli:.2f} s, "
              f"ratio {cli / parse:.2f}x (best of {args.runs})")


if __name__ == "__main__":
    main()
