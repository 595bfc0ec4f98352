"""kubepreempt: Kubernetes pod priority and preemption, reproduced faithfully and fast.

The public library entry points are re-exported here so scripts can write::

    from kubepreempt import load_cluster, schedule

They load on first use (PEP 562), so ``import kubepreempt.cli`` can set up the process
(see :mod:`kubepreempt.cli`) before numpy and the engine are imported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kubepreempt.api.errors import InputError

if TYPE_CHECKING:
    from kubepreempt.decide import Decision, load_cluster, schedule
    from kubepreempt.release import Modelled
    from kubepreempt.scheduler.config import load_scheduler_config

__all__ = ["Decision", "InputError", "Modelled", "__version__", "load_cluster",
           "load_scheduler_config", "schedule"]
__version__ = "0.1.0"

_LAZY = {"Decision": "kubepreempt.decide", "load_cluster": "kubepreempt.decide",
         "Modelled": "kubepreempt.release",
         "schedule": "kubepreempt.decide",
         "load_scheduler_config": "kubepreempt.scheduler.config"}


def __getattr__(name: str) -> Any:
    import importlib

    module = _LAZY.get(name)
    if module is None:
        # A submodule: an eager package import used to make them all attributes.
        if not name.startswith("_"):
            try:
                return importlib.import_module(f"{__name__}.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{__name__}.{name}":
                    raise
        raise AttributeError(f"module 'kubepreempt' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later reads skip this hook
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
