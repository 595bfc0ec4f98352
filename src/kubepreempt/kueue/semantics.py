"""Which Kueue release the engine follows: one engine, a few named switches.

Kueue v0.7.0 (the seed's release) and current upstream differ in a handful of rules. The
engine reads these switches instead of keeping two copies of any algorithm; each switch
names the rule it changes and the release it arrived in.
"""

from __future__ import annotations

from dataclasses import dataclass

from kubepreempt.api.errors import InputError

V0_7 = "v0.7"
CURRENT = "current"
# The upstream release the CURRENT switches follow (see docs/CONFORMANCE.md).
CURRENT_RELEASE = "v0.15"


@dataclass(frozen=True, slots=True)
class Semantics:
    """The rules that differ between the Kueue releases kubepreempt models."""

    version: str
    # GetQueueOrderTimestamp: an AdmissionCheck eviction also resets the queue-order time
    # (v0.9+); v0.7 uses the eviction time only for PodsReadyTimeout evictions.
    admission_check_eviction_orders: bool


SEMANTICS: dict[str, Semantics] = {
    V0_7: Semantics(V0_7, admission_check_eviction_orders=False),
    CURRENT: Semantics(CURRENT, admission_check_eviction_orders=True),
}


def semantics_for(version: str) -> Semantics:
    """The switches for ``--kueue-version`` (``v0.7`` or ``current``)."""
    key = CURRENT if version in ("", CURRENT, "latest") else version
    if key not in SEMANTICS:
        raise InputError(f"--kueue-version {version!r} is not one of {sorted(SEMANTICS)}")
    return SEMANTICS[key]
