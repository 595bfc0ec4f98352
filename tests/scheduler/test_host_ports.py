"""Host ports: upstream ``schedutil.GetHostPorts`` and ``HostPortInfo.CheckConflict``.

``GetHostPorts`` returns the ``hostPort > 0`` ports of the containers and of init
containers with ``restartPolicy: Always`` only; the NodePorts filter and the kubelet's
admission (``nodeports.Fits``) both use it, for the incoming pod and for the node's pods.
"""

from __future__ import annotations

import pytest
from builders import cluster_of, node, pod

from kubepreempt.api.ports import host_ports, ports_conflict
from kubepreempt.decide import schedule
from kubepreempt.kubelet.admission import ADMIT, REJECT, admit_pod

PORT_REASON = "node(s) didn't have free ports for the requested pod ports"


def _port(port: int, **extra) -> dict:
    return {"containerPort": port, "hostPort": port, **extra}


def test_get_host_ports_skips_regular_init_containers():
    spec = {"initContainers": [{"name": "init", "ports": [_port(1)]},
                               {"name": "side", "restartPolicy": "Always",
                                "ports": [_port(2, protocol="UDP")]}],
            "containers": [{"name": "c", "ports": [_port(3, hostIP="10.0.0.1"),
                                                   {"containerPort": 4}]}]}
    assert host_ports(spec) == (("0.0.0.0", "UDP", 2), ("10.0.0.1", "TCP", 3))


def test_host_network_defaults_host_ports_to_container_ports():
    # SetDefaults_Pod defaultHostNetworkPorts: hostPort = containerPort when unset.
    spec = {"hostNetwork": True, "containers": [{"name": "c", "ports": [{"containerPort": 80}]}]}
    assert host_ports(spec) == (("0.0.0.0", "TCP", 80),)


@pytest.mark.parametrize(("wanted", "used", "clash"), [
    (("0.0.0.0", "TCP", 80), ("10.0.0.1", "TCP", 80), True),    # 0.0.0.0 takes every IP
    (("10.0.0.1", "TCP", 80), ("0.0.0.0", "TCP", 80), True),
    (("10.0.0.1", "TCP", 80), ("10.0.0.2", "TCP", 80), False),  # different IPs
    (("0.0.0.0", "TCP", 80), ("0.0.0.0", "UDP", 80), False),    # different protocols
    (("0.0.0.0", "TCP", 80), ("0.0.0.0", "TCP", 81), False),
])
def test_check_conflict(wanted, used, clash):
    assert ports_conflict([wanted], [used]) is clash


def _with_ports(name: str, *, init_port: int | None = None, sidecar_port: int | None = None,
                port: int | None = None, node_name: str | None = None) -> dict:
    p = pod(name, "100m", node_name=node_name)
    if port is not None:
        p["spec"]["containers"][0]["ports"] = [_port(port)]
    inits = []
    if init_port is not None:
        inits.append({"name": "init", "image": "x", "ports": [_port(init_port)]})
    if sidecar_port is not None:
        inits.append({"name": "side", "image": "x", "restartPolicy": "Always",
                      "ports": [_port(sidecar_port)]})
    if inits:
        p["spec"]["initContainers"] = inits
    return p


@pytest.mark.parametrize(("bound", "incoming", "fits"), [
    # A bound pod's regular init container holds no port ...
    (dict(init_port=8080), dict(port=8080), True),
    # ... nor does the incoming pod's,
    (dict(port=8080), dict(init_port=8080), True),
    # but a sidecar's port is held for the pod's life, on either side.
    (dict(sidecar_port=8080), dict(port=8080), False),
    (dict(port=8080), dict(sidecar_port=8080), False),
])
def test_node_ports_filter(bound, incoming, fits):
    cluster = cluster_of(node("n1"), _with_ports("running", node_name="n1", **bound),
                         _with_ports("new", **incoming))
    decision = schedule(cluster, "default/new", preemption=False)
    if fits:
        assert (decision.result, decision.node) == ("scheduled", "n1")
    else:
        assert decision.result == "unschedulable"
        assert decision.message.startswith(f"0/1 nodes are available: 1 {PORT_REASON}.")


@pytest.mark.parametrize(("bound", "incoming", "result"), [
    (dict(init_port=8080), dict(port=8080), ADMIT),
    (dict(port=8080), dict(init_port=8080), ADMIT),
    (dict(sidecar_port=8080), dict(port=8080), REJECT),
    (dict(port=8080), dict(sidecar_port=8080), REJECT),
])
def test_kubelet_admission_uses_the_same_host_ports(bound, incoming, result):
    cluster = cluster_of(node("n1"), _with_ports("running", node_name="n1", **bound),
                         _with_ports("new", **incoming))
    res = admit_pod(cluster.find_pod("default/new"), cluster.nodes[0],
                    cluster.node_pods[0].values())
    assert res.result == result
    if result == REJECT:
        assert res.reason == "NodePorts"
