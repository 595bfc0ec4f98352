"""Write a synthetic `kubectl get nodes,pods -A -o json|yaml`-shaped dump (`kind: List`).

    python benchmarks/gen_dump.py --nodes 5000 --pods 50000 -o /tmp/dump.json
    python benchmarks/gen_dump.py --nodes 5000 --pods 50000 -o /tmp/dump.yaml

Nodes: cpu 32 / memory 128Gi / pods 110; running pods (100m-900m, 128Mi-1Gi, priorities 0
and 1000) spread round-robin; one pending high-priority pod `default/pending` that fits.

With ``--pod-template pods.json`` (what ``kubectl get pods -A -o json`` prints) the running
pods are copies of the bound pods found there, round-robin, renamed and re-bound (each keeps
its managedFields, tolerations, volumes and status): a dump shaped like a real cluster's.
``--include priorityclasses.json`` (repeatable) copies a list's objects in as they are,
e.g. the PriorityClasses those pods name.
"""

from __future__ import annotations

import argparse
import random

import orjson
import yaml


def dump(nodes: int, pods: int, seed: int = 0, templates: list[dict] | None = None) -> dict:
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
        if templates and not pending:
            items.append(_from_template(templates[j % len(templates)], j, nodes))
            continue
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


def _from_template(template: dict, j: int, nodes: int) -> dict:
    """A copy of a recorded bound pod, renamed ``pod-J`` and bound to node ``J mod nodes``."""
    pod = orjson.loads(orjson.dumps(template))
    pod.setdefault("apiVersion", "v1")
    pod.setdefault("kind", "Pod")  # a PodList's items omit their kind
    pod["metadata"]["name"] = f"pod-{j}"
    pod["metadata"]["uid"] = f"00000000-0000-0000-0000-{j:012d}"
    pod["metadata"].pop("generateName", None)
    pod["spec"]["nodeName"] = f"node-{j % nodes:05d}"
    return pod


def list_items(path: str) -> list[dict]:
    """The items of a ``kubectl get ... -o json|yaml`` list, each with its kind."""
    with open(path, "rb") as f:
        text = f.read()
    doc = orjson.loads(text) if text.lstrip()[:1] in (b"{", b"[") else yaml.safe_load(text)
    items = doc.get("items", []) if isinstance(doc, dict) else doc
    kind = doc.get("kind", "") if isinstance(doc, dict) else ""
    for item in items:
        if "kind" not in item and kind.endswith("List") and kind != "List":
            item["kind"] = kind[:-4]  # a typed list's items omit their kind
    return items


def load_templates(path: str) -> list[dict]:
    """The bound pods of a ``kubectl get pods -o json|yaml`` list."""
    items = list_items(path)
    bound = [p for p in items if (p.get("spec") or {}).get("nodeName")
             and (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")]
    if not bound:
        raise SystemExit(f"{path}: no bound pods to copy")
    return bound


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=50000)
    ap.add_argument("-o", "--output", required=True, help="*.json or *.yaml")
    ap.add_argument("--pod-template", metavar="FILE",
                    help="copy the running pods from this pod list (kubectl get pods -o json)")
    ap.add_argument("--include", metavar="FILE", action="append", default=[],
                    help="copy this list's objects in as they are (repeatable)")
    args = ap.parse_args()
    templates = load_templates(args.pod_template) if args.pod_template else None
    obj = dump(args.nodes, args.pods, templates=templates)
    obj["items"][:0] = [item for path in args.include for item in list_items(path)]
    if args.output.endswith(".json"):
        with open(args.output, "wb") as f:
            f.write(orjson.dumps(obj, option=orjson.OPT_INDENT_2))
    else:
        with open(args.output, "w") as f:
            yaml.dump(obj, f, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper),
                      sort_keys=False)


if __name__ == "__main__":
    main()
