"""``python -m kubepreempt``."""

import sys

from kubepreempt.cli import main

sys.exit(main())
