"""`kubepreempt schedule` on a dump vs just parsing it, as whole processes (issue 15 item 3).

    python benchmarks/gen_dump.py -o /tmp/dump.json
    python benchmarks/gen_dump.py -o /tmp/dump.yaml
    python benchmarks/bench_cli.py /tmp/dump.json /tmp/dump.yaml [--runs 3]

Both sides are fresh interpreters (start-up, imports and exit included): the baseline reads
the file and parses it (orjson for JSON, PyYAML's C loader for YAML) and exits normally;
the CLI decides where ``default/pending`` goes. ``--runs`` of each, alternating, so a
shared machine's load hits both alike; prints the best and the median of each.
Targets: JSON within 1.5x, YAML within 1.0x.
"""

from __future__ import annotations

import argparse
import statistics
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
        parse: list[float] = []
        cli: list[float] = []
        for _ in range(args.runs):
            parse.append(timed(parse_cmd))
            cli.append(timed(cli_cmd))
        # The parse process alone swings by 20% between runs (page faults of a 35 MB
        # tree), so both the best runs and the medians are compared.
        best_parse, best_cli = min(parse), min(cli)
        med_parse, med_cli = statistics.median(parse), statistics.median(cli)
        print(f"{path}: parse process {best_parse:.2f} s best / {med_parse:.2f} s median, "
              f"kubepreempt schedule {best_cli:.2f} s / {med_cli:.2f} s, ratio "
              f"{best_cli / best_parse:.2f}x best / {med_cli / med_parse:.2f}x median "
              f"({args.runs} runs each, alternating)")


if __name__ == "__main__":
    main()
