"""The results file: one JSON line per finished run, keyed by variant and seed.

Each line carries the variant's fingerprint (a hash of the edited scenario, the simulate
options and the kubepreempt version), so results of a changed sweep file are not reused.
A run that was cut off mid-line (the sweep was killed) is simply not there.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

import orjson

from kubepreempt import __version__
from kubepreempt.api.errors import InputError, Source
from kubepreempt.manifests import Documents


def fingerprint(docs: Documents, options: Mapping[str, Any]) -> str:
    """A short hash of everything that decides a variant's runs (besides the seed)."""
    bodies = [[kind, [obj.body for obj in objs]] for kind, objs in sorted(docs.by_kind.items())]
    blob = orjson.dumps([__version__, dict(options), bodies],
                        option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS,
                        default=str)
    return hashlib.sha256(blob).hexdigest()[:16]


class ResultStore:
    """Append-only JSON lines ``{"variant", "seed", "fingerprint", "metrics" | "error"}``.

    The file is locked while the store is open: two sweeps appending to one results file
    would each run what the other is running.
    """

    def __init__(self, path: str | Path, fresh: bool = False) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._file: IO[bytes] | None = self.path.open("ab")
        except OSError as exc:
            raise InputError(f"cannot write results: {exc.strerror}",
                             Source(str(self.path))) from None
        if not _lock(self._file):
            self._file.close()
            raise InputError("another sweep is using this results file (use --results "
                             "for another one)", Source(str(self.path)))
        if fresh:
            self._file.truncate(0)
        self._cut = _ends_mid_line(self.path)

    def load(self, fingerprints: Mapping[str, str]) -> tuple[dict[tuple[str, int], dict], int]:
        """Stored successful runs of these variants (name -> fingerprint), and how many
        stored lines belong to other variants or fingerprints (stale, ignored).

        Failed runs are not returned: they run again.
        """
        done: dict[tuple[str, int], dict] = {}
        stale = 0
        if not self.path.exists():
            return done, stale
        try:
            lines = self.path.read_bytes().splitlines()
        except OSError as exc:
            raise InputError(f"cannot read results: {exc.strerror}",
                             Source(str(self.path))) from None
        for line in lines:
            try:
                row = orjson.loads(line)
                key = (row["variant"], int(row["seed"]))
                fp = row["fingerprint"]
            except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
                continue  # a line cut short when the sweep was killed
            if fingerprints.get(key[0]) != fp:
                stale += 1
            elif "metrics" in row:
                done[key] = row
        return done, stale

    def append(self, row: Mapping[str, Any]) -> None:
        """Write one run's line and flush it, so an interruption loses at most that run."""
        if self._file is None:
            raise ValueError("the results file is closed")
        if self._cut:
            self._file.write(b"\n")  # end the line a killed sweep left half-written
            self._cut = False
        self._file.write(orjson.dumps(row) + b"\n")
        self._file.flush()

    def close(self) -> None:
        """Close the file (and release its lock)."""
        if self._file is not None:
            self._file.close()
            self._file = None


def _ends_mid_line(path: Path) -> bool:
    if not path.exists() or path.stat().st_size == 0:
        return False
    with path.open("rb") as f:
        f.seek(-1, 2)
        return f.read(1) != b"\n"


def _lock(f: IO[bytes]) -> bool:
    """Take an exclusive lock on ``f`` without waiting; False if another process holds it."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on POSIX: no lock
        return True
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True
