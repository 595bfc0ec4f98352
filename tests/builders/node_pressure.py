"""The node-pressure eviction example shared by the kubelet-eviction and disruption
metrics tests."""

# The design doc's "Preemption - Eviction workflow": 2 GB usable by pods; a burstable pod
# (request 500Mi, uses 1Gi) and a best-effort pod (uses 1Gi), both priority 100; a
# priority-200 pod asks for 2Gi and uses more than 1 GB (1.5Gi here).
SEED_EXAMPLE = """
apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  allocatable: {cpu: "4", memory: 2Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata:
  name: burstable
  annotations: {kubepreempt.io/memory-usage: 1Gi}
spec:
  nodeName: n1
  priority: 100
  containers: [{name: c, resources: {requests: {memory: 500Mi}}}]
---
apiVersion: v1
kind: Pod
metadata:
  name: best-effort
  annotations: {kubepreempt.io/memory-usage: 1Gi}
spec:
  nodeName: n1
  priority: 100
  containers: [{name: c}]
---
apiVersion: v1
kind: Pod
metadata:
  name: high
  annotations: {kubepreempt.io/memory-usage: 1.5Gi}
spec:
  priority: 200
  containers: [{name: c, resources: {requests: {memory: 2Gi}}}]
"""
