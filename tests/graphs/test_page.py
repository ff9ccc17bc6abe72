"""The HTML graph as a person sees it: loaded in a real headless Chromium (Debian's
``chromium``, driven by Playwright with that binary; nothing downloads a browser)."""

from __future__ import annotations

import shutil

import pytest

from graphmem.graphs.data import view_graph
from graphmem.graphs.render import to_html

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("no chromium binary on PATH (Debian: apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (pip install playwright; no browser download "
                    "is needed, the system chromium is used)")
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.mark.parametrize("view", ["conversation", "ownership", "combined"])
def test_graph_page_loads_cleanly_and_shows_every_node(village, browser, tmp_path, view):
    from tests.graphs.conftest import NS

    drawn = view_graph(village, NS, view)
    page_file = to_html(drawn, tmp_path / f"{view}.html", title=view)
    page = browser.new_page()
    problems = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(page_file.as_uri())
    # NVL, the renderer inside neo4j-viz, exposes these hooks once it has drawn
    page.wait_for_function("typeof window.__Nvl_dumpNodes === 'function'", timeout=20_000)
    page.wait_for_timeout(500)
    title = page.title()
    shown = page.evaluate("window.__Nvl_dumpNodes().map(n => n.id)")
    links = page.evaluate("window.__Nvl_dumpRelationships().length")
    page.screenshot(path=str(tmp_path / f"{view}.png"))
    print(f"screenshot: {tmp_path / f'{view}.png'}")
    page.close()
    assert problems == []
    assert sorted(shown) == sorted(n["id"] for n in drawn.nodes) and len(shown) > 0
    assert links == len(drawn.edges)
    assert title == view
