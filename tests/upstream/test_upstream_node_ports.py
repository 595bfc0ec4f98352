"""NodePorts: upstream's node_ports_test.go TestNodePorts table.

Not ported: TestPreFilterDisabled (Go cycle-state plumbing), TestGetContainerPorts (a Go
helper's slice output), Test_isSchedulableAfterPodDeleted (queueing hints).
"""

from __future__ import annotations

from typing import Any

import pytest
from upstream_harness import UNSCHED, run_filter, up_node, up_pod

from kubepreempt.scheduler.plugins.node_ports import ERR_REASON, NodePorts


def port_pod(name: str, *infos: str, node: str | None = None) -> dict[str, Any]:
    """upstream newPod(host, "PROTO/hostIP/hostPort", ...)."""
    ports = []
    for info in infos:
        proto, ip, port = info.split("/")
        ports.append({"containerPort": int(port), "hostIP": ip, "hostPort": int(port),
                      "protocol": proto})
    return up_pod(name, node=node, containers=[{"name": "c", "image": "x", "ports": ports}])


CASES: list[tuple[str, tuple[str, ...], tuple[str, ...], bool]] = [
    ("other port", ("UDP/127.0.0.1/8080",), ("UDP/127.0.0.1/9090",), True),
    ("same udp port", ("UDP/127.0.0.1/8080",), ("UDP/127.0.0.1/8080",), False),
    ("same tcp port", ("TCP/127.0.0.1/8080",), ("TCP/127.0.0.1/8080",), False),
    ("different host ip", ("TCP/127.0.0.1/8080",), ("TCP/127.0.0.2/8080",), True),
    ("different protocol", ("UDP/127.0.0.1/8080",), ("TCP/127.0.0.1/8080",), True),
    ("second udp port conflict", ("UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"),
     ("UDP/127.0.0.1/8080",), False),
    ("first tcp port conflict", ("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"),
     ("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"), False),
    ("first tcp port conflict due to 0.0.0.0 hostIP", ("TCP/0.0.0.0/8001",),
     ("TCP/127.0.0.1/8001",), False),
    ("TCP hostPort conflict due to 0.0.0.0 hostIP", ("TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"),
     ("TCP/127.0.0.1/8001",), False),
    ("second tcp port conflict to 0.0.0.0 hostIP", ("TCP/127.0.0.1/8001",),
     ("TCP/0.0.0.0/8001",), False),
    ("second different protocol", ("UDP/127.0.0.1/8001",), ("TCP/0.0.0.0/8001",), True),
    ("UDP hostPort conflict due to 0.0.0.0 hostIP", ("UDP/127.0.0.1/8001",),
     ("TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"), False),
]


@pytest.mark.parametrize(("wanted", "used", "fits"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_node_ports(wanted, used, fits) -> None:
    status = run_filter(NodePorts(), port_pod("p", *wanted), [up_node("m1")],
                        [port_pod("existing", *used, node="m1")])["m1"]
    if fits:
        assert status is None
    else:
        assert (status.code, status.reasons) == (UNSCHED, (ERR_REASON,))


def test_skip_filter() -> None:
    # "skip filter": a pod without host ports skips the plugin (upstream PreFilter Skip).
    assert run_filter(NodePorts(), up_pod("p"), [up_node("m1")],
                      [port_pod("existing", "TCP/0.0.0.0/80", node="m1")]) == {"m1": None}
    assert ERR_REASON == "node(s) didn't have free ports for the requested pod ports"
