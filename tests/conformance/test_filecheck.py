"""The report of a saved output file is the engine's (:mod:`pespec.conformance.filecheck`):
every family's ``--from-file`` check names the file as the backend, the device and profile
``file``, no capabilities, and the time from :func:`started_now` (issue 38: one copy)."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from pespec.conformance.filecheck import read_claimed, saved_file_report, started_now
from pespec.conformance.report import CheckResult


def test_started_now_is_utc_seconds_and_the_performance_clock() -> None:
    before_clock, before = time.perf_counter(), datetime.now(timezone.utc)
    stamp, clock = started_now()
    after_clock, after = time.perf_counter(), datetime.now(timezone.utc)
    parsed = datetime.fromisoformat(stamp)
    assert parsed.utcoffset() == timedelta(0) and parsed.microsecond == 0
    assert before.replace(microsecond=0) <= parsed <= after
    assert before_clock <= clock <= after_clock


def test_the_report_names_the_file_and_keeps_the_family_fields() -> None:
    check = CheckResult("reference:file", "reference", "t", "§0", "passed", "ok")
    started = ("2026-01-02T03:04:05+00:00", time.perf_counter())
    fields = {"output_dtype": "float32", "level": "float32", "working_dtype": None}
    fields["command"] = "pespec check x"
    report = saved_file_report("out.npy", [check], started, fields)
    assert (report.backend, report.backend_spec, report.device) == ("out.npy", None, "file")
    assert (report.profile, report.capabilities) == ("file", {})
    assert report.timestamp == started[0] and report.checks == [check]
    assert (report.level, report.output_dtype, report.command) == (
        "float32",
        "float32",
        "pespec check x",
    )
    assert 0.0 <= report.duration_s < 60.0
    assert report.conformant
    table = saved_file_report("t.npy", [check], started, fields, device="table")
    assert (table.device, table.profile) == ("table", "table")


def test_a_text_file_is_read_in_the_claimed_dtype(tmp_path: Path) -> None:
    # 0.1 is not a float32: read as float32 it rounds to 13421773 * 2^-27.
    table = tmp_path / "out.csv"
    table.write_text("0.1,1\n", encoding="utf-8")
    claim = SimpleNamespace(dtype="float32")
    name, text, saved = read_claimed(table, key=None, claim=claim, text_dtype=lambda c: c.dtype)
    assert (name, text) == (str(table), True)
    assert saved.array.dtype == np.float32 and saved.array[0, 0] == np.float32(0.1)
    _, _, unclaimed = read_claimed(table, key=None, claim=None, text_dtype=lambda c: c.dtype)
    assert unclaimed.array.dtype == np.float64 and unclaimed.array[0, 0] == 0.1


def test_a_binary_file_keeps_its_dtype(tmp_path: Path) -> None:
    path = tmp_path / "out.NPY"  # the suffix in any case
    with path.open("wb") as handle:
        np.save(handle, np.full((2, 2), 0.1))
    claim = SimpleNamespace(dtype="float32")
    name, text, saved = read_claimed(path, key=None, claim=claim, text_dtype=lambda c: c.dtype)
    assert name == str(path) and not text and saved.array.dtype == np.float64
