"""kubepreempt: Kubernetes pod priority and preemption, reproduced faithfully and fast.

The public library entry points are re-exported here so scripts can write::

    from kubepreempt import load_cluster, schedule
"""

from kubepreempt.api.errors import InputError

__all__ = ["InputError", "__version__"]
__version__ = "0.1.0"

from kubepreempt.decide import Decision, load_cluster, schedule  # noqa: E402
from kubepreempt.scheduler.config import load_scheduler_config  # noqa: E402

__all__ += ["Decision", "load_cluster", "load_scheduler_config", "schedule"]
