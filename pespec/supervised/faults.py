"""The check process's crash stack (faulthandler), told as the backend's frames (issue 41).

The child writes faulthandler's dump to a file of its own (:func:`new_fault_file`) instead of
the terminal, where ~25 lines, mostly pespec's and Python's own frames, came before the
verdict. When the child crashed, :func:`tell` prints the frames of the backend's code under a
heading (pespec's and the standard library's frames left out), the whole dump with
``--verbose``, nothing with ``--quiet``; the report names the crash either way.
"""

from __future__ import annotations

import os
import re
import sys
import sysconfig
import tempfile
from pathlib import Path

__all__ = ["backend_frames", "new_fault_file", "read_and_remove", "tell"]

_FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line \d+ in \S+')
_PESPEC = str(Path(__file__).resolve().parents[1])
_STDLIB = sysconfig.get_paths()["stdlib"]


def new_fault_file() -> str:
    """A new empty file for the child's faulthandler dump."""
    handle, path = tempfile.mkstemp(prefix="pespec-fault-", suffix=".txt")
    os.close(handle)
    return path


def read_and_remove(path: str) -> str:
    """The dump (empty when the child did not crash); the file removed."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    try:
        os.unlink(path)
    except OSError:
        pass
    return text


def backend_frames(dump: str) -> list[str]:
    """The dump's first line (what happened) and its frames outside pespec and the standard
    library: the backend's code, and the libraries it called."""
    lines = dump.splitlines()
    kept = [lines[0]] if lines and not _FRAME.match(lines[0]) else []
    for line in lines:
        found = _FRAME.match(line)
        if found is None:
            continue
        path = str(Path(found["path"]).resolve()) if found["path"].startswith("/") else ""
        if path and not path.startswith((_PESPEC, _STDLIB)):
            kept.append(line.rstrip())
    return kept


def tell(dump: str, *, verbose: bool = False, quiet: bool = False) -> None:
    """Print the crash stack on standard error: the backend's frames under a heading, the
    whole dump with ``verbose``, nothing with ``quiet`` or when there was no crash."""
    if not dump.strip() or quiet:
        return
    if verbose:
        print(dump.rstrip(), file=sys.stderr)
        return
    frames = backend_frames(dump)
    heading = "the backend's frames when the check process crashed (faulthandler; --verbose "
    heading += "prints the whole stack):"
    print("\n".join([heading, *frames]), file=sys.stderr)
