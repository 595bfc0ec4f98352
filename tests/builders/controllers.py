"""Workload-controller manifests for simulator scenarios (YAML text): the three
priority classes, pod templates, Deployments, and generated-name shortening."""

from __future__ import annotations

CLASSES = """
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: low}
value: 100
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: mid}
value: 500
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
"""


def template(pc: str, cpu: int = 1, exit_after: str = "5s", labels: str = "{app: x}",
             extra: str = "") -> str:
    """A pod template of class ``pc``: one container of ``cpu`` cores."""
    return f"""
  template:
    metadata:
      labels: {labels}
      annotations: {{kubepreempt.io/exit-after-signal: "{exit_after}"}}
    spec:
      priorityClassName: {pc}{extra}
      containers:
      - name: c
        resources: {{requests: {{cpu: "{cpu}"}}}}
"""


def deployment(name: str, replicas: int, pc: str, ns: str = "default", arrival: str = "0",
               **kw: str) -> str:
    """A Deployment of ``replicas`` pods labelled ``app: name`` (template: ``template``)."""
    return f"""
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  namespace: {ns}
  annotations: {{kubepreempt.io/arrival: "{arrival}"}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: {name}}}}}""" + template(pc, labels=f"{{app: {name}}}", **kw)


def short(key: str) -> str:
    """``web-5d8c7b9f6-abcde`` -> ``web``: the workload part of a generated pod name."""
    return key.split("/")[-1].split("-")[0]
