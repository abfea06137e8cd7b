"""The course as a learner meets it: every lesson opened in JupyterLab in headless Chromium, run from
a fresh kernel, and every slider moved (keyboard and mouse) while its figure is watched.

Needs Debian's `chromium` and the `playwright` package (`.ci/run` installs both); elsewhere the
module is skipped with the reason. Run it with `make test-browser`. Screenshots of each slider
state go to `test-artifacts/browser/` (not committed); the README's `assets/NN_topic.png` are copies
of the first explorer's mouse-drag state.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
LESSONS = sorted((ROOT / "lessons").glob("[0-9][0-9]_*.ipynb"))
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "test-artifacts" / "browser"
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

pytestmark = pytest.mark.browser

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None

if sync_playwright is None or not CHROMIUM.exists():
    reason = "needs /usr/bin/chromium (apt install chromium) and playwright (pip install playwright)"
    pytest.skip(reason, allow_module_level=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def lab(tmp_path_factory):
    """JupyterLab on loopback, serving a copy of the lessons; shut down whatever happens.

    A new server for every lesson: with one server for all, a lesson opened after another sometimes
    never ran a cell after its kernel restart."""
    home = tmp_path_factory.mktemp("lab")
    shutil.copytree(ROOT / "lessons", home / "lessons")
    settings = home / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )
    tracker = home / "settings" / "@jupyterlab" / "notebook-extension"
    tracker.mkdir(parents=True)
    (tracker / "tracker.jupyterlab-settings").write_text(json.dumps({"recordTiming": True}))
    port, token = free_port(), secrets.token_hex(16)
    env = {
        **os.environ,
        "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
    }
    cmd = [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        "--no-browser",
        "--allow-root",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={home / 'lessons'}",
        "--LabApp.expose_app_in_browser=True",
    ]
    log = open(home / "lab.log", "w")
    server = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2)
                break
            except OSError:
                if server.poll() is not None:
                    raise RuntimeError(
                        f"JupyterLab exited: {(home / 'lab.log').read_text()[-2000:]}"
                    ) from None
                time.sleep(0.5)
        else:
            raise RuntimeError("JupyterLab did not answer /api/status within 60 s")
        yield url, token
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


@pytest.fixture(scope="module")
def browser_context(tmp_path_factory):
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("profile")),
            executable_path=str(CHROMIUM),
            headless=True,
            args=FLAGS,
            viewport={"width": 1400, "height": 1000},
        )
        try:
            yield context
        finally:
            context.close()


IMAGE_HASH = """async (img) => {
    const bytes = await (await fetch(img.src)).arrayBuffer();
    const digest = await crypto.subtle.digest('SHA-256', bytes);
    return Array.from(new Uint8Array(digest)).map(b => b.toString(16).padStart(2, '0')).join('');
}"""


NOTEBOOK_STATE = """() => {
    const panel = window.jupyterapp.shell.currentWidget;
    const cells = panel.content.model.cells;
    let code = 0, done = 0, errors = [];
    for (let i = 0; i < cells.length; i++) {
        const cell = cells.get(i);
        if (cell.type !== 'code') continue;
        code += 1;
        if (cell.executionCount) done += 1;
        for (const out of cell.outputs.toJSON()) {
            if (out.output_type === 'error') errors.push(`cell ${i}: ${out.ename}: ${out.evalue}`);
        }
    }
    const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
    return {code, done, errors, status: kernel ? kernel.status : 'none'};
}"""


def run_all(page, name: str, timeout_s: float = 300) -> dict:
    """Clear outputs, restart the kernel and run every cell of notebook `name` (the current one);
    wait until every cell has run."""
    page.wait_for_function(
        "(name) => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
        " return w && w.context && w.context.path === name"
        " && w.sessionContext && w.sessionContext.session; }",
        arg=name,
        timeout=90_000,
    )
    # Restarting while the first connection to the kernel is still being set up races the
    # websocket's reconnection (seen as a stale connection replaced and a struct.error in the
    # server's log, then a page that never hears the kernel again): wait for a settled kernel first.
    page.wait_for_function(
        "() => { const k = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;"
        " return k && k.connectionStatus === 'connected' && k.status === 'idle'; }",
        timeout=90_000,
    )
    time.sleep(2)
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    page.evaluate("() => { window.jupyterapp.commands.execute('runmenu:restart-and-run-all'); }")
    page.locator(".jp-Dialog button.jp-mod-accept").click(timeout=30_000)
    # the saved notebook's cells carry execution counts: first see the new run begin
    page.wait_for_function(
        f"() => {{ const s = ({NOTEBOOK_STATE})(); return s.done < s.code; }}", timeout=60_000
    )
    deadline = time.time() + timeout_s
    state = {}
    while time.time() < deadline:
        state = page.evaluate(NOTEBOOK_STATE)
        assert not state["errors"], state["errors"]
        if state["code"] and state["done"] == state["code"] and state["status"] == "idle":
            return state
        time.sleep(1)
    raise AssertionError(f"the lesson did not finish in {timeout_s} s: {state}")


CELL_SECONDS = """() => {
    const cells = window.jupyterapp.shell.currentWidget.content.model.cells;
    let total = 0;
    for (let i = 0; i < cells.length; i++) {
        const t = cells.get(i).getMetadata('execution');
        if (t && t['iopub.execute_input'] && t['shell.execute_reply']) {
            total += (Date.parse(t['shell.execute_reply']) - Date.parse(t['iopub.execute_input'])) / 1000;
        }
    }
    return total;
}"""


def errors_on(page) -> list[str]:
    """Error outputs in the notebook model, and tracebacks shown on the page."""
    texts = page.locator(
        '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
    ).all_inner_texts()
    return page.evaluate(NOTEBOOK_STATE)["errors"] + [t[:500] for t in texts if "Traceback" in t]


def wait_for_change(page, img, before: str, timeout_s: float = 30) -> str:
    """Wait until the image's bytes differ from `before` and stop changing; return the new hash."""
    deadline = time.time() + timeout_s
    last, stable_since = before, None
    while time.time() < deadline:
        now = img.evaluate(IMAGE_HASH)
        if now != last:
            last, stable_since = now, time.time()
        elif now != before and stable_since and time.time() - stable_since > 1.0:
            return now
        time.sleep(0.25)
    raise AssertionError("the figure did not change after the slider moved")


def move(page, control, how: str) -> None:
    handle = control.locator(".noUi-handle")
    if handle.count():
        at_max = float(handle.get_attribute("aria-valuenow")) >= float(handle.get_attribute("aria-valuemax"))
        if how == "keyboard":
            handle.focus()
            page.keyboard.press("ArrowLeft" if at_max else "ArrowRight")
        else:
            box = handle.bounding_box()
            x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
            page.mouse.move(x, y)
            page.mouse.down()
            page.mouse.move(x + (-35 if at_max else 35), y, steps=5)
            page.mouse.up()
        return
    buttons = control.locator("button")  # toggle buttons: pick one not selected
    for i in range(buttons.count()):
        if "mod-active" not in (buttons.nth(i).get_attribute("class") or ""):
            buttons.nth(i).click()
            return


def readout(control) -> str:
    value = control.locator(".widget-readout")
    if value.count():
        return value.first.inner_text()
    return control.locator("button.mod-active").first.inner_text()


@pytest.mark.parametrize("notebook", LESSONS, ids=lambda p: p.stem)
def test_lesson_runs_and_every_slider_moves_its_figure(lab, browser_context, notebook):
    url, token = lab
    page = browser_context.new_page()
    out = ARTIFACTS / notebook.stem
    out.mkdir(parents=True, exist_ok=True)
    try:
        # ?reset: start from an empty workspace, not the notebooks an earlier test left open
        page.goto(f"{url}/lab/tree/{notebook.name}?reset&token={token}", timeout=60_000)
        started = time.perf_counter()
        run_all(page, notebook.name)
        ran = time.perf_counter() - started
        assert not errors_on(page), errors_on(page)
        explorers = page.locator(".jp-OutputArea-output .widget-vbox:has(> .widget-image)")
        assert explorers.count() >= 1, "the lesson shows no slider explorer"
        for e in range(explorers.count()):
            explorer = explorers.nth(e)
            explorer.scroll_into_view_if_needed()
            img = explorer.locator("img.widget-image, .widget-image").first
            controls = explorer.locator(".widget-hbox").first.locator(":scope > *")
            assert controls.count() >= 1
            state = img.evaluate(IMAGE_HASH)
            if os.environ.get("MINIVIT_SCREENSHOTS") and e == 0:
                explorer.screenshot(
                    path=str(ROOT / os.environ["MINIVIT_SCREENSHOTS"] / f"{notebook.stem}.png")
                )
            for c in range(controls.count()):
                control = controls.nth(c)
                gestures = ("keyboard", "mouse") if control.locator(".noUi-handle").count() else ("click",)
                for how in gestures:
                    before = readout(control)
                    move(page, control, how)
                    state = wait_for_change(page, img, state)
                    assert readout(control) != before, f"slider {c} readout still {before!r} after {how}"
                    explorer.screenshot(path=str(out / f"explorer{e}_control{c}_{how}.png"))
        assert not errors_on(page), errors_on(page)
        # the browser run next to the lesson's own compute: the course's bar is beyond_compute_s <= 30
        sliders = time.perf_counter() - started - ran
        compute = page.evaluate(CELL_SECONDS)  # the kernel's own time in the cells (recordTiming)
        timing = {
            "cells_s": round(compute, 1),
            "run_all_s": round(ran, 1),
            "sliders_s": round(sliders, 1),
            "beyond_compute_s": round(ran + sliders - compute, 1),
        }
        (out / "timing.json").write_text(json.dumps(timing))
    finally:
        page.close()
