"""What the browser tests share: Debian's Chromium, driven by Playwright, or the module skipped.

from tests.chromium import CHROMIUM, FLAGS, sync_playwright_or_skip
sync_playwright = sync_playwright_or_skip()   # at module level: skips it where either is missing
"""

from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def sync_playwright_or_skip():
    """Playwright's `sync_playwright`, or the calling test module skipped with the reason."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover - depends on the machine
        sync_playwright = None
    if sync_playwright is None or not CHROMIUM.exists():
        reason = "needs /usr/bin/chromium (apt install chromium) and playwright (pip install playwright)"
        pytest.skip(reason, allow_module_level=True)
    return sync_playwright
