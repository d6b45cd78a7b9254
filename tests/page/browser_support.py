"""Headless Chromium and a local web server, for the browser tests and the benchmark.

Only the system's Chromium and chromedriver are used (never Selenium
Manager, which would download a browser): ``chromium_available()`` says
whether they are installed.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import io
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Iterator

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
# Flags that work as root in a container, with nothing reaching the network.
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage")


def build_html(srcdir: Path, outdir: Path, **overrides) -> str:
    """Build ``srcdir`` with Sphinx's HTML builder into ``outdir``; returns the warnings."""
    from sphinx.application import Sphinx
    from sphinx.util.docutils import docutils_namespace, patch_docutils

    warnings = io.StringIO()
    # As sphinx-build does: node and role registrations end with the build,
    # so several builds in one process do not warn about each other.
    with patch_docutils(str(srcdir)), docutils_namespace():
        app = Sphinx(str(srcdir), str(srcdir), str(outdir), str(outdir / ".doctrees"), "html",
                     confoverrides=overrides, status=None, warning=warnings, freshenv=True)
        app.build()
    return warnings.getvalue()


# The scenario page every browser test module loads, and the themes it is built in.
BROWSER_ROOT = Path(__file__).parent / "roots" / "test-browser"
THEMES = {"alabaster": "alabaster", "furo": "furo", "pydata": "pydata_sphinx_theme", "rtd": "sphinx_rtd_theme"}


def build_themes(outdir: Path) -> dict[str, str]:
    """BROWSER_ROOT built once per theme into ``outdir/<name>``; returns each build's warnings."""
    return {name: build_html(BROWSER_ROOT, outdir / name, html_theme=theme) for name, theme in THEMES.items()}


# Each theme's own light/dark switch, the attribute its toggle sets; alabaster and sphinx-rtd-theme have
# none: they stay light whatever the reader's system prefers.
THEME_SWITCH = {"furo": "document.body.dataset.theme = arguments[0]",
                "pydata": "document.documentElement.dataset.theme = arguments[0]"}


def colour_scheme(driver, theme: str, mode: str) -> None:
    """The loaded page in ``mode`` ("light" or "dark"): the system's preference, and the theme's switch."""
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
        {"name": "prefers-color-scheme", "value": mode}]})
    if theme in THEME_SWITCH:
        driver.execute_script(THEME_SWITCH[theme], mode)


def load_light(driver, url: str, theme: str, width: int, height: int = 900) -> None:
    """``url`` loaded in a ``width`` x ``height`` window, in the theme's light mode (its own switch, where it
    has one), the console's earlier entries dropped."""
    driver.set_window_size(width, height)
    driver.set_script_timeout(30)
    driver.get(url)
    console_errors(driver)
    if theme in THEME_SWITCH:
        driver.execute_script(THEME_SWITCH[theme], "light")


def chromium_available() -> bool:
    return CHROMIUM.exists() and CHROMEDRIVER.exists()


# ``pytestmark = IN_CHROMIUM``: a module of browser tests, skipped where Debian's browser is missing.
IN_CHROMIUM = [
    pytest.mark.browser,
    pytest.mark.skipif(not chromium_available(), reason="needs /usr/bin/chromium and /usr/bin/chromedriver "
                       "(Debian packages chromium and chromium-driver)"),
]


@contextlib.contextmanager
def chromium(*, javascript: bool = True, width: int = 1280, height: int = 900) -> Iterator["WebDriver"]:  # noqa: F821
    """A headless Chromium driven by Selenium, with the browser console captured."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="kx-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.add_argument(f"--window-size={width},{height}")
    if not javascript:
        options.add_argument("--blink-settings=scriptEnabled=false")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # keep test output clean
        pass


@contextlib.contextmanager
def serve(directory: str | Path) -> Iterator[str]:
    """Serve ``directory`` on 127.0.0.1 at a free port; yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def console_errors(driver) -> list[str]:
    """Browser console entries at level SEVERE or WARNING since the last call.

    The test server has no favicon; the browser's request for it is not the page's fault.
    """
    return [f"{e['level']}: {e['message']}" for e in driver.get_log("browser")
            if e["level"] in ("SEVERE", "WARNING") and "favicon.ico" not in e["message"]]


# --------------------------------------------------------------------------
# driving the page


@contextlib.contextmanager
def opened(driver, url: str, width: int = 1280, height: int = 900) -> Iterator["WebDriver"]:  # noqa: F821
    """``url`` freshly loaded in ``driver``; the console must stay clean until the block ends."""
    driver.set_window_size(width, height)
    driver.get(url)
    console_errors(driver)  # drop whatever an earlier page logged
    yield driver
    assert console_errors(driver) == []


def visible_rows(driver) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('table.kx-t tbody tr'))"
        ".filter(tr => !tr.hidden && tr.offsetParent !== null).map(tr => tr.id)")


def choose(driver, kind: str, value: str) -> None:
    """Pick ``value`` in the page's ``kind`` select (filter, device, version), as a change event."""
    driver.execute_script(
        "const s = document.querySelector(`.kexport-controls select[data-kx=${arguments[0]}]`);"
        "s.value = arguments[1]; s.dispatchEvent(new Event('change'));", kind, value)


def click(driver, element) -> None:
    """A real click, after scrolling the element to the middle of the window (the
    tables scroll sideways inside their wrappers)."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center', inline: 'center'})", element)
    element.click()


def fetch_texts(driver, urls: list[str]) -> list[tuple[int, str]]:
    """(status, body) of each URL, fetched by the page itself (so as a reader's click would)."""
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "Promise.all(arguments[0].map(u => fetch(u).then(r => r.text().then(t => [r.status, t]))))"
        ".then(done, e => done(String(e)));", urls)


WAIT = 30.0  # seconds: only a failing test waits this long; a condition that holds returns at once


def wait_until(driver, condition, *, what: str, timeout: float = WAIT):
    """``condition(driver)``'s first truthy answer, polled by Selenium's WebDriverWait; past ``timeout``
    seconds an AssertionError saying what was awaited (never a fixed sleep: a busy machine outlasts any)."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.05).until(condition)
    except TimeoutException:
        raise AssertionError(f"waited {timeout:g} s for {what}") from None


def wait_for(driver, script: str, timeout: float = WAIT):
    """The first truthy value ``script`` returns in the page."""
    return wait_until(driver, lambda d: d.execute_script(script), what=f"the page to answer: {script}",
                      timeout=timeout)


def query_of(driver) -> str:
    """The current URL's query string (the page's state)."""
    return driver.current_url.split("#")[0].split("?", 1)[-1] if "?" in driver.current_url else ""


def open_details(driver, selector: str) -> None:
    """Open every ``<details>`` that ``selector`` matches and wait until each one's toggle event has come: the
    page's script fills a "Reproduce" box on that event (a capture listener on its root, so it has run when the
    box's own listener counts)."""
    count = driver.execute_script("""
        const closed = [...document.querySelectorAll(arguments[0])].filter(d => !d.open);
        window.kxTestToggled = 0;
        closed.forEach(d => d.addEventListener('toggle', () => window.kxTestToggled++, {once: true}));
        closed.forEach(d => { d.open = true; });
        return closed.length;""", selector)
    wait_until(driver, lambda d: d.execute_script("return window.kxTestToggled") >= count,
               what=f"the toggle events of {count} boxes ({selector})")


def settled(driver) -> bool:
    """No CSS transition or animation running (a theme's colour switch fades)."""
    return driver.execute_script("return document.getAnimations().every(a => a.playState !== 'running')")


# --------------------------------------------------------------------------
# colour arithmetic for contrast checks (WCAG 2.x)


def parse_rgb(css: str) -> tuple[float, float, float, float]:
    """'rgb(1, 2, 3)' or 'rgba(1, 2, 3, 0.5)' -> (r, g, b, a)."""
    inner = css[css.index("(") + 1: css.rindex(")")].replace("/", ",")
    parts = [p.strip() for p in inner.replace(" ", ",").split(",") if p.strip()]
    r, g, b = (float(p) for p in parts[:3])
    a = float(parts[3]) if len(parts) > 3 else 1.0
    return r, g, b, a


def relative_luminance(rgb: tuple[float, ...]) -> float:
    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = rgb[:3]
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(fg: tuple[float, ...], bg: tuple[float, ...]) -> float:
    hi, lo = sorted((relative_luminance(fg), relative_luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)
