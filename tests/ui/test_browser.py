"""The timeline in a real headless Chromium (Debian's chromium, driven by selenium through
Debian's chromedriver; nothing downloads a browser): load, retain, forget, undo,
consolidate — by keyboard where a person would — then check the store. Screenshots are
kept under the test's tmp dir. Without chromium or chromedriver the test skips, saying why.
"""

from __future__ import annotations

import shutil

import pytest

CHROMIUM_HINT = ("apt-get install chromium chromium-driver (scripts/setup does it where it "
                 "runs as root with apt)")


@pytest.fixture
def browser(monkeypatch):
    try:
        from selenium import webdriver
        from selenium.common.exceptions import WebDriverException
    except ImportError:
        pytest.skip("selenium is not installed: pip install -e '.[dev]'")
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if not binary or not driver_path:
        pytest.skip(f"Debian's chromium or chromedriver is not installed: {CHROMIUM_HINT}")
    monkeypatch.setenv("SE_OFFLINE", "true")  # selenium-manager must never fetch a browser
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1000", "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    try:
        driver = webdriver.Chrome(options=options,
                                  service=webdriver.ChromeService(executable_path=driver_path))
    except WebDriverException as exc:
        pytest.skip(f"chromium could not be started: {exc.msg}")
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def test_a_person_curates_the_timeline_in_a_browser(browser, server, graph, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(browser, 20)
    shots = tmp_path / "screenshots"
    shots.mkdir()

    def node(fragment: str):
        return wait.until(lambda d: next(
            (li for li in d.find_elements(By.CSS_SELECTOR, "li.memory")
             if fragment in li.find_element(By.CSS_SELECTOR, ".text").text), None))

    def button(fragment: str, action: str):
        return node(fragment).find_element(By.CSS_SELECTOR, f'button[data-action="{action}"]')

    def settled(previous: str):  # the page re-drew after an act
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute(
            "data-loaded") != previous)

    def loaded() -> str:
        return browser.find_element(By.TAG_NAME, "body").get_attribute("data-loaded") or ""

    browser.get(server.url)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "li.memory"))
    assert "Page 1 of 1" in browser.find_element(By.ID, "position").text
    berlin = node("Berlin")
    assert "superseded" in berlin.get_attribute("class")
    assert "S " in berlin.find_element(By.CSS_SELECTOR, ".terms").text
    browser.save_screenshot(str(shots / "1-loaded.png"))

    # keyboard: Tab reaches the name field first, with a visible focus ring
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    active = browser.switch_to.active_element
    assert active.get_attribute("id") == "by"
    active.send_keys(Keys.CONTROL, "a")
    active.send_keys("maria")
    active.send_keys(Keys.TAB)
    assert browser.switch_to.active_element.get_attribute("id") == "agent"

    retain = button("cello", "pin")
    before = loaded()
    browser.execute_script("arguments[0].focus()", retain)
    assert browser.execute_script(
        "return getComputedStyle(document.activeElement).outlineStyle") != "none"
    retain.send_keys(Keys.ENTER)
    settled(before)
    assert "pinned" in node("cello").get_attribute("class")

    before = loaded()
    button("VS Code", "forget").send_keys(Keys.SPACE)
    settled(before)
    assert node("VS Code").find_elements(By.CSS_SELECTOR, "s.text")  # struck through
    browser.save_screenshot(str(shots / "2-forgotten.png"))
    undo = browser.switch_to.active_element  # the focus waits on the undo button
    assert undo.get_attribute("data-action") == "unforget"
    before = loaded()
    undo.send_keys(Keys.ENTER)
    settled(before)
    assert not node("VS Code").find_elements(By.CSS_SELECTOR, "s.text")

    chosen = ["Miso", "river"]
    chosen_ids = []
    for fragment in chosen:
        chosen_ids.append(node(fragment).get_attribute("data-id"))
        node(fragment).find_element(By.CSS_SELECTOR, "input[type=checkbox]").send_keys(
            Keys.SPACE)
    consolidate = browser.find_element(By.ID, "consolidate")
    assert consolidate.text == "Consolidate selected (2)"
    consolidate.send_keys(Keys.ENTER)
    dialog = wait.until(lambda d: d.find_element(By.ID, "preview")
                        if d.find_element(By.ID, "preview").is_displayed() else None)
    preview = dialog.find_element(By.ID, "preview-text").text
    assert preview and any(f in preview for f in chosen)
    browser.save_screenshot(str(shots / "3-preview.png"))
    before = loaded()
    browser.switch_to.active_element.send_keys(Keys.ENTER)  # Confirm has the focus
    settled(before)
    wait.until(lambda d: "consolidated into" in d.find_element(By.ID, "status").text)
    browser.save_screenshot(str(shots / "4-consolidated.png"))

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
