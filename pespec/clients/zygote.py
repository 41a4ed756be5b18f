"""Run ``pespec`` command lines in forked processes of one pre-loaded parent (issue 29).

Importing torch and transformers costs seconds, and the conformance table runs each of its
rows in a new process (a crash, a hang or an ``os._exit`` in a library costs that row only).
The zygote is started once per table with the libraries already imported; each row is a
``fork()`` of it, so a row starts in milliseconds, in the same state as every other row
(whatever ran before it), and is isolated as a new process is. Only libraries outside the
project are pre-loaded (numpy, mpmath, hypothesis, torch, transformers, diffusers), never
pespec's own modules: what Hypothesis draws from loaded local modules stays as in a user's
``pespec check``.

Protocol, one JSON line per row on the zygote's stdin: ``{"argv": [...], "dir": PATH}``.
The zygote forks; the child writes its stdout and stderr to ``PATH/stdout`` and
``PATH/stderr`` and runs :func:`pespec.cli.main` on ``argv``; the zygote writes the child's
pid to ``PATH/pid`` and, once the child has ended, its exit status to ``PATH/status`` (the
exit code, or minus the signal number). Both files are written atomically. Closing stdin
ends the zygote after it has killed and reaped its remaining children.

An engine's rows (issue 35) get a zygote of their own, started with the engine
environment's interpreter and its heavy modules (vLLM's rotary package: about 7 CPU s a row
otherwise) named on its command line: ``python -m pespec.clients.zygote MODULE...``.

POSIX only (``os.fork``); :func:`available` says whether it can be used here.
"""

from __future__ import annotations

import importlib.util
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

__all__ = ["PRELOAD", "Zygote", "available"]

PRELOAD = (
    "numpy",
    "mpmath",
    "hypothesis",
    "torch",
    "transformers.modeling_utils",
    "diffusers.models.embeddings",
)
"""Imported by the zygote before it forks, where installed (each saves every row its import)."""


def available() -> bool:
    """Whether rows can be forked here (POSIX ``os.fork``)."""
    return hasattr(os, "fork") and sys.platform != "emscripten"


def _write(path: Path, text: str) -> None:
    part = path.with_name(path.name + ".part")
    part.write_text(text, encoding="utf-8")
    os.replace(part, path)


def _status(raw: int) -> int:
    return -os.WTERMSIG(raw) if os.WIFSIGNALED(raw) else os.WEXITSTATUS(raw)


def _child(argv: list[str], folder: Path) -> None:
    """In the forked child: run the command line with its output in ``folder``; never returns."""
    code = 3
    try:
        for fd, name in ((1, "stdout"), (2, "stderr")):
            target = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(target, fd)
            os.close(target)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        from pespec.cli import main

        code = main(argv)
    except SystemExit as exc:  # argparse and sys.exit inside a library
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # anything else is this row's crash, told on stderr
        import traceback

        traceback.print_exc()
        code = 3
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:  # the process ends next either way
                pass
        os._exit(code)


def _serve(fd: int) -> None:
    """The zygote's loop: fork a child per request line on ``fd``, reap children, write
    their status (the input is read raw, so no request waits in a buffer select cannot see)."""
    children: dict[int, Path] = {}
    pending = b""
    open_input = True
    while open_input or children:
        if open_input:
            ready, _, _ = select.select([fd], [], [], 0.02)
            chunk = os.read(fd, 65536) if ready else None
            if chunk == b"":
                open_input = False
                for pid in children:
                    os.kill(pid, signal.SIGKILL)
            elif chunk:
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    request = json.loads(line)
                    folder = Path(request["dir"])
                    pid = os.fork()
                    if pid == 0:
                        os.close(fd)
                        _child([str(a) for a in request["argv"]], folder)
                    children[pid] = folder
                    _write(folder / "pid", str(pid))
        else:
            time.sleep(0.02)
        while children:
            pid, raw = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            if pid in children:
                _write(children.pop(pid) / "status", str(_status(raw)))


def _preload(extra: tuple[str, ...] = ()) -> None:
    for name in (*PRELOAD, *extra):
        try:
            if importlib.util.find_spec(name.split(".")[0]) is not None:
                importlib.import_module(name)
        except Exception:  # a library that fails to import is not pre-loaded
            continue


class Zygote:
    """A running zygote (a context manager): :meth:`run` is one row, safe from many threads."""

    def __init__(
        self,
        python: str | Path | None = None,
        preload: tuple[str, ...] = (),
        environment: dict[str, str] | None = None,
    ) -> None:
        """A zygote of interpreter ``python`` (this one when None) that also imports
        ``preload`` (module names) before it forks, with ``environment`` added to its own."""
        self._process = subprocess.Popen(
            [str(python or sys.executable), "-m", "pespec.clients.zygote", *preload],
            env={**os.environ, **(environment or {})},
            stdin=subprocess.PIPE,
            text=True,
        )
        self._lock = threading.Lock()

    def __enter__(self) -> Zygote:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End the zygote (its remaining children are killed)."""
        if self._process.stdin is not None and not self._process.stdin.closed:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()

    def run(self, argv: list[str], folder: Path, timeout: float) -> tuple[int | None, str]:
        """Run ``pespec ARGV`` in a forked child: (exit status or None if it was killed after
        ``timeout`` seconds, its stderr)."""
        request = json.dumps({"argv": argv, "dir": str(folder)}) + "\n"
        with self._lock:
            if self._process.poll() is not None or self._process.stdin is None:
                raise RuntimeError(f"the zygote ended with exit {self._process.returncode}")
            self._process.stdin.write(request)
            self._process.stdin.flush()
        status = folder / "status"
        deadline = time.monotonic() + timeout
        hung = False
        while not status.is_file():
            if not hung and time.monotonic() > deadline:
                hung = True
                _kill(folder / "pid")
            if self._process.poll() is not None:
                raise RuntimeError(f"the zygote ended with exit {self._process.returncode}")
            time.sleep(0.05)
        stderr = (folder / "stderr").read_text(encoding="utf-8", errors="replace")
        return (None if hung else int(status.read_text(encoding="utf-8"))), stderr


def _kill(pid_file: Path) -> None:
    for _ in range(200):  # the pid is written right after the fork
        if pid_file.is_file():
            try:
                os.kill(int(pid_file.read_text(encoding="utf-8")), signal.SIGKILL)
            except ProcessLookupError:
                pass
            return
        time.sleep(0.05)


def main(args: Any = None) -> None:
    """``python -m pespec.clients.zygote [MODULE...]``: pre-load (PRELOAD and the modules
    named), then serve requests from stdin."""
    _preload(tuple(sys.argv[1:]))
    _serve(sys.stdin.fileno())


if __name__ == "__main__":
    main()
