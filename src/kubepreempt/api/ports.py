"""Host ports: which ports a pod holds on its node, and when two pods' ports clash.

One helper for the scheduler's NodePorts filter and the kubelet's admission check, as
upstream shares ``schedutil.GetHostPorts`` and ``HostPortInfo.CheckConflict`` between them:

* :func:`host_ports` is ``GetHostPorts``: the ``hostPort > 0`` ports of the regular
  containers and of init containers with ``restartPolicy: Always`` (sidecars run for the
  pod's whole life; a regular init container has exited before the pod runs).
* :func:`ports_conflict` is ``CheckConflict`` over a node's pods: same protocol and port,
  and equal host IPs or either one ``0.0.0.0``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

HostPort = tuple[str, str, int]  # (hostIP, protocol, hostPort), defaults filled in
ANY_IP = "0.0.0.0"  # upstream DefaultBindAllHostIP
DEFAULT_PROTOCOL = "TCP"


def _container_ports(container: Any, host_network: bool) -> Iterable[HostPort]:
    if not isinstance(container, Mapping):
        raise ValueError("a container must be a mapping")
    for port in container.get("ports") or []:
        if not isinstance(port, Mapping):
            raise ValueError("a container port must be a mapping")
        host_port = int(port.get("hostPort") or 0)
        if host_network and host_port == 0:
            # API defaulting (defaultHostNetworkPorts): with hostNetwork every container
            # port is also a host port.
            host_port = int(port.get("containerPort") or 0)
        if host_port > 0:
            yield (str(port.get("hostIP") or ANY_IP), str(port.get("protocol") or
                                                          DEFAULT_PROTOCOL), host_port)


def host_ports(spec: Mapping[str, Any]) -> tuple[HostPort, ...]:
    """``GetHostPorts``: sidecar init containers' host ports, then the containers'."""
    host_network = bool(spec.get("hostNetwork"))
    out: list[HostPort] = []
    for c in spec.get("initContainers") or []:
        if isinstance(c, Mapping) and c.get("restartPolicy") == "Always":
            out.extend(_container_ports(c, host_network))
    for c in spec.get("containers") or []:
        out.extend(_container_ports(c, host_network))
    return tuple(out)


def conflict(a: HostPort, b: HostPort) -> bool:
    """True when two host ports cannot both be bound on one node."""
    return a[1] == b[1] and a[2] == b[2] and (a[0] == b[0] or ANY_IP in (a[0], b[0]))


def ports_conflict(wanted: Iterable[HostPort], used: Iterable[HostPort]) -> bool:
    """True when any wanted host port clashes with one already used on the node."""
    wanted = tuple(wanted)
    return any(conflict(w, u) for u in used for w in wanted)
