"""``kubectl-preempt``: kubepreempt as a kubectl plugin (``kubectl preempt schedule ...``).

kubectl hands a plugin every argument unparsed, so kubectl's usual ``-n/--namespace``,
``--context`` and ``--kubeconfig`` may come before the subcommand; they are moved after it,
and commands that read a cluster get ``--cluster`` (the current context by default).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from kubepreempt import cli

LIVE_COMMANDS = frozenset({"schedule", "advise", "kubelet-admit", "evict-rank", "kueue",
                           "watch"})
_VALUED = ("-n", "--namespace", "--context", "--kubeconfig")


def rewrite(argv: Sequence[str]) -> list[str]:
    """kubectl-style arguments -> kubepreempt arguments."""
    moved: list[str] = []
    rest: list[str] = []
    command: str | None = None
    i = 0
    while i < len(argv):
        arg = argv[i]
        if command is None:
            name, eq, value = arg.partition("=")
            if name in _VALUED:
                if eq:
                    moved += [name, value]
                    i += 1
                else:
                    moved += argv[i:i + 2]
                    i += 2
                continue
            if arg.startswith("-n") and len(arg) > 2 and not arg.startswith("--"):
                moved += ["-n", arg[2:]]  # -nNAMESPACE, as kubectl accepts it
                i += 1
                continue
            if not arg.startswith("-"):
                command = arg
        rest.append(arg)
        i += 1
    if command is None:
        return [*rest, *moved]
    at = rest.index(command) + 1
    extra = list(moved)
    if command in LIVE_COMMANDS and "--cluster" not in rest:
        extra.append("--cluster")
    return [*rest[:at], *extra, *rest[at:]]


def main(argv: Sequence[str] | None = None) -> int:
    """Run kubepreempt with kubectl-style arguments."""
    args = rewrite(sys.argv[1:] if argv is None else argv)
    return cli.main(args, prog_name="kubectl preempt")


def run() -> None:
    """Console entry point of ``kubectl-preempt``."""
    cli.finish(main())
