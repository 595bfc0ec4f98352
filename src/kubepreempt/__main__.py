"""``python -m kubepreempt``."""

from kubepreempt.cli import run

run()
