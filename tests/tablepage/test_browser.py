"""The table page and the site in a real browser (issue 40): Debian's chromium driven by
Playwright (never ``playwright install``: no browser is downloaded). Filters change the
visible rows, a row's detail opens with its picture and reproduction line, the history shows
the snapshots, the site's pages and search work, and no page logs a console error.
Screenshots go to ``$TMPDIR/pespec-screenshots/`` (CI keeps the temp folder's files).

Skipped without ``/usr/bin/chromium`` (``apt-get install chromium``) or Playwright
(the ``[browser]`` extra)."""

from __future__ import annotations

import functools
import http.server
import json
import re
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from paths import ROOT

from pespec.tablepage import load_table, write_page
from pespec.tablepage.history import load_history
from tests.clients.test_table import toy_clients  # noqa: F401  (the fixture)

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not Path(CHROMIUM).is_file():
    pytest.skip("no chromium here (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="the [browser] extra is missing")

ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SHOTS = Path(tempfile.gettempdir()) / "pespec-screenshots"
TABLE = ROOT / "results" / "conformance-table.json"
HISTORY = ROOT / "results" / "history"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    SHOTS.mkdir(exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


def _open(browser: Any, url: str) -> tuple[Any, list[str]]:
    """A new page at ``url`` and the list its console errors and uncaught errors go to."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    return page, errors


@pytest.fixture(scope="module")
def table_page(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp("page")
    return write_page(load_table(TABLE), folder, load_history(HISTORY)).as_uri()


def _shown(page: Any) -> int:
    return int(page.inner_text("#shown").split(" of ")[0])


def test_filters_change_the_visible_rows(browser: Any, table_page: str) -> None:
    rows = load_table(TABLE)["rows"]
    page, errors = _open(browser, table_page)
    assert _shown(page) == len(rows)
    page.select_option("#f-verdict", "NON-CONFORMANT")
    wanted = sum(r["verdict"] == "NON-CONFORMANT" for r in rows)
    assert _shown(page) == wanted
    visible = page.locator("table.grid td.c[data-verdict]:not(.dim)")
    assert visible.count() == wanted
    assert page.locator("table.grid tbody tr:not(.hidden)").count() == len(
        {(r["client"], r["config"]) for r in rows if r["verdict"] == "NON-CONFORMANT"}
    )
    page.select_option("#f-library", "diffusers")
    both = sum(r["verdict"] == "NON-CONFORMANT" and r["library"] == "diffusers" for r in rows)
    assert _shown(page) == both
    page.screenshot(path=str(SHOTS / "table-filtered.png"))
    page.click("#reset")
    page.fill("#f-text", "gemma3")
    assert _shown(page) == sum("gemma3" in r["client"] for r in rows)
    page.fill("#f-text", "llama-3.1")  # a configuration's name (no client's)
    named = sum("llama-3.1" in f"{r['client']} {r['config']}".lower() for r in rows)
    assert _shown(page) == named > 0
    page.click("#reset")
    first = load_history(HISTORY)[0]
    before = {tuple(r[:3]): r[3] for r in first["rows"]}
    page.select_option("#f-changed", first["id"])
    changed = sum(before.get((r["client"], r["config"], r["dtype"])) != r["verdict"] for r in rows)
    assert _shown(page) == changed
    assert errors == []


def test_a_rows_detail_opens_with_its_reproduction_line(browser: Any, table_page: str) -> None:
    rows = load_table(TABLE)["rows"]
    index = next(i for i, r in enumerate(rows) if r["verdict"] == "NON-CONFORMANT")
    page, errors = _open(browser, table_page)
    button = page.locator(f'button[data-row="{index}"]')
    button.focus()
    page.keyboard.press("Enter")  # keyboard: a cell is a button
    detail = page.locator(f"#row-{index}")
    assert detail.is_visible()
    assert rows[index]["reproduction"] in detail.inner_text()
    assert rows[index]["diagnosis"] in detail.inner_text()
    detail.locator("button.copy").click()
    copied = re.compile("^(copied|select the line and copy it)$")
    sync_api.expect(detail.locator(".copied")).to_have_text(copied)
    page.screenshot(path=str(SHOTS / "table-detail.png"))
    page.keyboard.press("Escape")
    assert not detail.is_visible()
    assert page.evaluate("document.activeElement.getAttribute('data-row')") == str(index)
    assert errors == []


def test_the_history_shows_the_snapshots(browser: Any, table_page: str) -> None:
    page, errors = _open(browser, table_page)
    page.click("nav a[href='#history']")
    snapshots = load_history(HISTORY)
    listed = page.locator("#history table.snapshots tbody tr th").all_inner_texts()
    assert listed == [s["id"] for s in snapshots]
    bars = page.locator("#history svg rect title").all_text_contents()
    assert f"{snapshots[0]['id']}: {snapshots[0]['counts']['CONFORMANT']} CONFORMANT" in bars
    page.locator("#history").screenshot(path=str(SHOTS / "table-history.png"))
    assert errors == []


@pytest.mark.usefixtures("toy_clients")
def test_a_row_with_checks_shows_its_error_picture(browser: Any, tmp_path: Path) -> None:
    from pespec.clients.catalog import all_clients
    from pespec.clients.table import build_table

    clients = [c for c in all_clients().values() if c.name == "toy:wrong-theta"]
    table = build_table(clients, jobs=1, timeout=240.0, fork=False)
    (tmp_path / "t.json").write_text(json.dumps(table), encoding="utf-8")
    page, errors = _open(browser, write_page(table, tmp_path).as_uri())
    page.click('button[data-row="0"]')
    picture = page.locator("#row-0 figure.picture svg")
    assert picture.is_visible()
    failed = [c for c in table["rows"][0]["checks"] if c["status"] == "failed"]
    assert failed and picture.locator("rect").count() == len(failed)
    page.locator("#row-0").screenshot(path=str(SHOTS / "row-picture.png"))
    assert errors == []


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """No request log."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The built site served over HTTP on this machine (search needs a web worker)."""
    pytest.importorskip("material", reason="the [site] extra is missing")
    from sitegen.build import build

    folder = tmp_path_factory.mktemp("site")
    build(folder, TABLE, HISTORY)
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_the_site_links_requirements_and_searches(browser: Any, site: str) -> None:
    page, errors = _open(browser, f"{site}/spec/06-conformance.html#R6.1")
    assert page.locator('[id="R6.1"]').count() == 1
    page.screenshot(path=str(SHOTS / "site-spec.png"))
    # The search index is built by a web worker: a query typed before it is ready gets no
    # answer (seen on a loaded machine), so the query is typed again until the results show.
    for _ in range(12):
        page.fill("input.md-search__input", "")
        page.type("input.md-search__input", "golden fixtures")
        try:
            page.wait_for_selector(".md-search-result__item", timeout=5000)
            break
        except Exception:  # playwright's TimeoutError: not ready yet, type again
            continue
    assert page.locator(".md-search-result__item").count() > 0
    page.screenshot(path=str(SHOTS / "site-search.png"))
    table, table_errors = _open(browser, f"{site}/table/index.html")
    assert _shown(table) == len(load_table(TABLE)["rows"])
    assert errors == [] and table_errors == []
