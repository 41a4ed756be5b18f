"""Atomic file writes: a temporary file in the target's folder, then ``os.replace``.

An interrupted write leaves the previous file intact (or no file), never a partial one.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["atomic_path", "check_writable", "write_atomic"]


@contextmanager
def atomic_path(path: str | os.PathLike[str], suffix: str = ".tmp") -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on normal exit it replaces ``path``.

    On any exception (KeyboardInterrupt included) the temporary file is removed and
    ``path`` is left as it was. The folder is created if needed.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=suffix)
    os.close(fd)
    # mkstemp creates the file 0600; give it the mode a plain open() would (0666 less the
    # umask), or the mode of the file it replaces, so reports stay readable by others.
    try:
        mode = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    os.chmod(tmp, mode)
    try:
        yield Path(tmp)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def check_writable(path: str | os.PathLike[str], name: str) -> Path:
    """``path`` as a Path when a file can be written there (checked before a long run);
    else ValueError naming the option ``name``, the path and why not.

    The folder need not exist yet (:func:`atomic_path` creates it): the nearest existing
    ancestor must be a folder in which a file can be created, tried with a temporary file
    that is removed at once. An existing folder at ``path`` itself is refused.
    """
    target = Path(path)
    if target.is_dir():
        raise ValueError(f"{name} must be a file path; got {str(target)!r}, which is a folder")
    ancestor = target.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise ValueError(
            f"{name} cannot be written: {str(ancestor)!r} is a file, not a folder "
            f"(got {str(target)!r})"
        )
    try:
        fd, probe = tempfile.mkstemp(dir=ancestor, prefix=".pespec-write-test-")
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ValueError(
            f"{name} cannot be written: cannot create a file in {str(ancestor)!r} "
            f"({reason}); got {str(target)!r}"
        ) from None
    os.close(fd)
    os.unlink(probe)
    return target


def _umask() -> int:
    """The process umask, read without changing it where the OS says it (Linux), else by
    setting and restoring it."""
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


def write_atomic(path: str | os.PathLike[str], data: bytes | str) -> None:
    """Write ``data`` (bytes, or text as UTF-8 with ``\\n`` newlines) to ``path`` atomically."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    with atomic_path(path) as tmp:
        tmp.write_bytes(payload)
