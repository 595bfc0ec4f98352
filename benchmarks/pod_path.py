"""The path of a pod through ``simulate``: how many modules it crosses, and how often it
comes back to one it already passed through.

    python benchmarks/pod_path.py [--list]

A scenario of two nodes, one bound pod and one pending pod is read and built, then
``simulate`` runs under ``sys.setprofile``. Every Python call whose
callee is a ``kubepreempt`` module is classified:

* *modules*: distinct ``kubepreempt`` modules entered;
* *cross-module calls*: calls from one ``kubepreempt`` module into another;
* *re-entries*: cross-module calls into a module entered earlier in the trace (the path
  goes back down into a layer it already visited, instead of passing through once).

Fewer re-entries is the goal; fewer modules is not, if it comes from merging concerns.
``--list`` prints every re-entry (caller -> callee function).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import Any

SCENARIO = """\
apiVersion: v1
kind: Node
metadata: {name: node-a}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-b}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: running, namespace: default}
spec:
  nodeName: node-a
  containers: [{name: c, image: app, resources: {requests: {cpu: "1", memory: 1Gi}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: pending, namespace: default}
spec:
  containers: [{name: c, image: app, resources: {requests: {cpu: "1", memory: 1Gi}}}]
"""


class PathTrace:
    """A ``sys.setprofile`` hook counting kubepreempt module crossings."""

    def __init__(self) -> None:
        self.entered: list[str] = []  # in first-entry order
        self.seen: set[str] = set()
        self.cross = 0
        self.reentries: list[str] = []

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        callee = frame.f_globals.get("__name__", "")
        if not callee.startswith("kubepreempt"):
            return
        caller_frame = frame.f_back
        caller = caller_frame.f_globals.get("__name__", "") if caller_frame else ""
        if callee not in self.seen:
            self.seen.add(callee)
            self.entered.append(callee)
            if caller.startswith("kubepreempt") and caller != callee:
                self.cross += 1
            return
        if caller.startswith("kubepreempt") and caller != callee:
            self.cross += 1
            self.reentries.append(f"{caller}.{caller_frame.f_code.co_name} -> "
                                  f"{callee}.{frame.f_code.co_name}")


def trace() -> PathTrace:
    from kubepreempt.manifests import load_documents
    from kubepreempt.sim import build_scenario, simulate

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scenario.yaml"
        path.write_text(SCENARIO)
        docs = load_documents([str(path)])
    # Import everything the run uses before tracing: imports are not the path of a pod.
    simulate(build_scenario(docs))
    scenario = build_scenario(load_documents_again(SCENARIO))
    hook = PathTrace()
    sys.setprofile(hook)
    try:
        result = simulate(scenario)
    finally:
        sys.setprofile(None)
    # The public result: the pending pod is bound to the empty node.
    node = result.to_json()["pods"]["default/pending"]["node"]
    assert node == "node-b", node
    return hook


def load_documents_again(text: str) -> Any:
    from kubepreempt.manifests import load_documents
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scenario.yaml"
        path.write_text(text)
        return load_documents([str(path)])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--list", action="store_true", help="print every re-entry")
    ns = ap.parse_args()
    hook = trace()
    if ns.list:
        for line in hook.reentries:
            print(line)
    print(f"modules entered:    {len(hook.entered)}")
    print(f"cross-module calls: {hook.cross}")
    print(f"re-entries:         {len(hook.reentries)}")


if __name__ == "__main__":
    main()
