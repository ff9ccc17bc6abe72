"""The timeline in a real headless Chromium (Debian's ``chromium``, driven by Playwright
with that binary, as tests/graphs does; nothing downloads a browser): load, retain,
forget, undo, consolidate — by keyboard where a person would — then check the store.
Screenshots are kept under the test's tmp dir. Without chromium or Playwright the test
skips, saying why.
"""

from __future__ import annotations

import shutil

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture
def page():
    if CHROMIUM is None:
        pytest.skip("no chromium binary on PATH (Debian: apt-get install chromium; "
                    "scripts/setup does it where it runs as root with apt)")
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (pip install -e '.[dev]'; no browser "
                    "download is needed, the system chromium is used)")
    with sync_playwright() as p:
        try:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        except Error as exc:
            pytest.skip(f"chromium could not be started: {exc.message.splitlines()[0]}")
        tab = browser.new_page(viewport={"width": 1400, "height": 1000})
        tab.set_default_timeout(20_000)
        yield tab
        browser.close()


def test_a_person_curates_the_timeline_in_a_browser(page, server, graph, tmp_path):
    shots = tmp_path / "screenshots"
    shots.mkdir()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))

    def node(fragment: str):
        return page.locator("li.memory").filter(
            has=page.locator(".text", has_text=fragment)).first

    def loaded() -> str:
        return page.locator("body").get_attribute("data-loaded") or ""

    def settled(previous: str) -> None:  # the page re-drew after an act
        page.wait_for_function("p => document.body.dataset.loaded !== p", arg=previous)

    def focused(attribute: str) -> str | None:
        return page.evaluate(f"document.activeElement.getAttribute('{attribute}')")

    page.goto(server.url)
    page.wait_for_selector("li.memory")
    assert "Page 1 of 1" in page.locator("#position").inner_text()
    assert "superseded" in node("Berlin").get_attribute("class")
    assert "S " in node("Berlin").locator(".terms").inner_text()
    page.screenshot(path=str(shots / "1-loaded.png"))

    # keyboard: Tab reaches the name field first; type who acts; Tab on to the agent
    page.keyboard.press("Tab")
    assert focused("id") == "by"
    page.keyboard.press("Control+A")
    page.keyboard.type("maria")
    page.keyboard.press("Tab")
    assert focused("id") == "agent"

    before = loaded()
    node("cello").locator('button[data-action="pin"]').focus()
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"
    page.keyboard.press("Enter")
    settled(before)
    assert "pinned" in node("cello").get_attribute("class")

    before = loaded()
    node("VS Code").locator('button[data-action="forget"]').focus()
    page.keyboard.press("Space")
    settled(before)
    assert node("VS Code").locator("s.text").count() == 1  # struck through
    page.screenshot(path=str(shots / "2-forgotten.png"))
    assert focused("data-action") == "unforget"  # the focus waits on the undo button
    before = loaded()
    page.keyboard.press("Enter")
    settled(before)
    assert node("VS Code").locator("s.text").count() == 0

    chosen = ["Miso", "river"]
    chosen_ids = [node(f).get_attribute("data-id") for f in chosen]
    for fragment in chosen:
        node(fragment).locator("input[type=checkbox]").focus()
        page.keyboard.press("Space")
    assert page.locator("#consolidate").inner_text() == "Consolidate selected (2)"
    page.locator("#consolidate").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#preview[open]")
    preview = page.locator("#preview-text").inner_text()
    assert preview and any(f in preview for f in chosen)
    page.screenshot(path=str(shots / "3-preview.png"))
    assert focused("id") == "confirm"
    before = loaded()
    page.keyboard.press("Enter")
    settled(before)
    page.wait_for_function(
        "document.getElementById('status').textContent.includes('consolidated into')")
    page.screenshot(path=str(shots / "4-consolidated.png"), full_page=True)
    assert problems == [], problems

    def flags(fragment: str) -> dict:
        return graph.cypher("MATCH (m:Memory) WHERE m.text CONTAINS $f AND m.kind <> "
                            "'semantic' RETURN m.pinned AS pinned, m.forgotten AS forgotten",
                            {"f": fragment})[0]

    assert flags("cello") == {"pinned": True, "forgotten": False}
    assert flags("VS Code")["forgotten"] is False
    assert graph.cypher("MATCH (m:Memory) WHERE m.id IN $ids RETURN collect(m.forgotten) "
                        "AS f", {"ids": chosen_ids})[0]["f"] == [True, True]
    fact = graph.cypher("MATCH (f:Memory {kind: 'semantic'})-[:CONSOLIDATED_FROM]->(s) "
                        "RETURN f.text AS text, count(s) AS sources")
    assert fact == [{"text": preview, "sources": 2}]
    acts = graph.cypher("MATCH (o:OpLog) WHERE o.op IN ['pin', 'forget', 'unforget', "
                        "'consolidate'] RETURN o.op AS op, o.agent AS by ORDER BY o.seq")
    assert acts == [{"op": op, "by": "maria"}
                    for op in ("pin", "forget", "unforget", "consolidate")]
    assert sorted(p.name for p in shots.iterdir()) == [
        "1-loaded.png", "2-forgotten.png", "3-preview.png", "4-consolidated.png"]
    print(f"screenshots: {shots}")
