"""Write a synthetic `kubectl get nodes,pods -A -o json|yaml`-shaped dump (`kind: List`).

    python benchmarks/gen_dump.py --nodes 5000 --pods 50000 -o /tmp/dump.json
    python benchmarks/gen_dump.py --nodes 5000 --pods 50000 -o /tmp/dump.yaml

Nodes: cpu 32 / memory 128Gi / pods 110; running pods (100m-900m, 128Mi-1Gi, priorities 0
and 1000) spread round-robin; one pending high-priority pod `default/pending` that fits.
"""

from __future__ import annotations

import argparse
import random

import orjson
import yaml


def dump(nodes: int, pods: int, seed: int = 0) -> dict:
    """The List object."""
    rng = random.Random(seed)
    items: list[dict] = []
    for i in range(nodes):
        name = f"node-{i:05d}"
        items.append({"apiVersion": "v1", "kind": "Node",
                      "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                                            "zone": f"z{i % 3}"}},
                      "spec": {}, "status": {"allocatable": {"cpu": "32", "memory": "128Gi",
                                                             "pods": "110"}}})
    for j in range(pods + 1):
        pending = j == pods
        spec: dict = {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.9",
                                      "resources": {"requests": {
                                          "cpu": f"{rng.randrange(1, 10) * 100}m",
                                          "memory": f"{rng.randrange(1, 9) * 128}Mi"}}}],
                      "priority": 2000 if pending else rng.choice([0, 1000])}
        status: dict = {"phase": "Pending"}
        if not pending:
            spec["nodeName"] = f"node-{j % nodes:05d}"
            status = {"phase": "Running", "startTime": "2024-01-01T00:00:00Z"}
        items.append({"apiVersion": "v1", "kind": "Pod",
                      "metadata": {"name": "pending" if pending else f"pod-{j}",
                                   "namespace": "default", "labels": {"app": f"a{j % 50}"}},
                      "spec": spec, "status": status})
    return {"apiVersion": "v1", "kind": "List", "items": items}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=50000)
    ap.add_argument("-o", "--output", required=True, help="*.json or *.yaml")
    args = ap.parse_args()
    obj = dump(args.nodes, args.pods)
    if args.output.endswith(".json"):
        with open(args.output, "wb") as f:
            f.write(orjson.dumps(obj, option=orjson.OPT_INDENT_2))
    else:
        with open(args.output, "w") as f:
            yaml.dump(obj, f, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper),
                      sort_keys=False)


if __name__ == "__main__":
    main()
