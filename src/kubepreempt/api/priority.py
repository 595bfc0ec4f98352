"""PriorityClasses and pod priority resolution (the Priority admission plugin's rules).

Order: ``spec.priority`` if set; else ``spec.priorityClassName`` resolved against the given
classes plus the two built-in system classes; else the ``globalDefault`` class; else 0.
``spec.preemptionPolicy`` likewise falls back to the class's, then PreemptLowerPriority.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kubepreempt.api.errors import InputError, Source
from kubepreempt.api.objects import PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER

HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY
SYSTEM_CLASSES = {
    "system-cluster-critical": SYSTEM_CRITICAL_PRIORITY,
    "system-node-critical": SYSTEM_CRITICAL_PRIORITY + 1000,
}


@dataclass(slots=True)
class PriorityClass:
    """A scheduling.k8s.io/v1 PriorityClass."""

    name: str
    value: int
    global_default: bool = False
    preemption_policy: str = PREEMPT_LOWER_PRIORITY
    description: str = ""
    source: Source = field(default_factory=Source)


def parse_priority_class(raw: Mapping[str, Any], source: Source) -> PriorityClass:
    """Build and validate a PriorityClass (value limit, reserved names, policy)."""
    meta = raw.get("metadata") or {}
    name = meta.get("name") if isinstance(meta, Mapping) else None
    if not name:
        raise InputError("object has no metadata.name", source, "PriorityClass")
    name = str(name)
    value = raw.get("value")
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"value {value!r} is not an integer", source, "PriorityClass", name)
    if name in SYSTEM_CLASSES:
        if value != SYSTEM_CLASSES[name]:
            raise InputError(f"built-in class must have value {SYSTEM_CLASSES[name]}, "
                             f"not {value}", source, "PriorityClass", name)
    elif value > HIGHEST_USER_DEFINABLE_PRIORITY:
        raise InputError(f"value {value} is above {HIGHEST_USER_DEFINABLE_PRIORITY}, which only "
                         "the system classes may exceed", source, "PriorityClass", name)
    elif name.startswith("system-"):
        raise InputError("names starting with 'system-' are reserved for built-in classes",
                         source, "PriorityClass", name)
    if value < -2_147_483_648:
        raise InputError(f"value {value} is below the 32-bit range", source, "PriorityClass",
                         name)
    policy = raw.get("preemptionPolicy") or PREEMPT_LOWER_PRIORITY
    if policy not in (PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER):
        raise InputError(f"preemptionPolicy {policy!r} is not PreemptLowerPriority or Never",
                         source, "PriorityClass", name)
    return PriorityClass(name, value, bool(raw.get("globalDefault")), policy,
                         str(raw.get("description") or ""), source)


class PriorityResolver:
    """Resolves a pod spec to ``(priority, preemptionPolicy)``."""

    def __init__(self, classes: Iterable[PriorityClass] = ()) -> None:
        self.classes: dict[str, PriorityClass] = {
            n: PriorityClass(n, v, description="built-in") for n, v in SYSTEM_CLASSES.items()
        }
        self.global_default: PriorityClass | None = None
        for pc in classes:
            self._add(pc)

    def _add(self, pc: PriorityClass) -> None:
        self.classes[pc.name] = pc
        if pc.global_default:
            if self.global_default is not None and self.global_default.name != pc.name:
                raise InputError(
                    f"more than one globalDefault PriorityClass ({self.global_default.name} "
                    f"and {pc.name})", pc.source, "PriorityClass", pc.name)
            self.global_default = pc

    def apply(self, pc: PriorityClass) -> None:
        """Create ``pc``, or update the class of that name (``kubectl apply``): an update
        may not change the value or preemptionPolicy (``ValidatePriorityClassUpdate``)."""
        old = self.classes.get(pc.name)
        if old is not None and old.description != "built-in":
            errors = []
            if old.value != pc.value:
                errors.append("value: Forbidden: may not be changed in an update.")
            if old.preemption_policy != pc.preemption_policy:
                errors.append(f"preemptionPolicy: Invalid value: {pc.preemption_policy!r}: "
                              "field is immutable".replace("'", '"'))
            if errors:
                text = errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
                raise InputError(f'PriorityClass.scheduling.k8s.io "{pc.name}" is invalid: '
                                 f"{text}", pc.source, "PriorityClass", pc.name)
            if self.global_default is old and not pc.global_default:
                self.global_default = None
        self._add(pc)

    def resolve(self, spec: Mapping[str, Any]) -> tuple[int, str]:
        """Priority and preemption policy for a pod spec; unknown classes are errors."""
        class_name = spec.get("priorityClassName")
        pc: PriorityClass | None = None
        if class_name:
            pc = self.classes.get(str(class_name))
        elif self.global_default is not None:
            pc = self.global_default
        priority = spec.get("priority")
        if priority is None:
            if class_name and pc is None:
                raise ValueError(f"unknown PriorityClass {class_name!r} (spec.priorityClassName)")
            priority = pc.value if pc else 0
        elif isinstance(priority, bool) or not isinstance(priority, int):
            raise ValueError(f"spec.priority {priority!r} is not an integer")
        policy = spec.get("preemptionPolicy") or (pc.preemption_policy if pc else
                                                  PREEMPT_LOWER_PRIORITY)
        if policy not in (PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER):
            raise ValueError(f"spec.preemptionPolicy {policy!r} is not PreemptLowerPriority "
                             "or Never")
        return int(priority), policy
