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
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.chromium import CHROMIUM, FLAGS, sync_playwright_or_skip

ROOT = Path(__file__).parent.parent
LESSONS = sorted((ROOT / "lessons").glob("[0-9][0-9]_*.ipynb"))
ARTIFACTS = ROOT / "test-artifacts" / "browser"

pytestmark = pytest.mark.browser
sync_playwright = sync_playwright_or_skip()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Lab:
    """A running JupyterLab: where it answers, its token, and the log its kernels write to too."""

    url: str
    token: str
    log: Path

    def kernel_states(self) -> list[str]:
        """The server's view of its kernels' states ('busy', 'idle', ...), one per kernel."""
        try:
            with urllib.request.urlopen(f"{self.url}/api/kernels?token={self.token}", timeout=10) as r:
                return [k["execution_state"] for k in json.load(r)]
        except OSError as error:
            return [f"unknown ({error})"]

    def log_tail(self, lines: int = 40) -> str:
        """The last lines of the server's and kernels' log, without the kernels' encryption warning."""
        text = self.log.read_text(errors="replace").splitlines()
        kept = [line for line in text if "running over TCP without encryption" not in line]
        return "\n".join(kept[-lines:])


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
        "MINIVIT_STRICT": "1",  # a claim that misses is a cell error here, not a warning block
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
        yield Lab(url, token, home / "lab.log")
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
    let code = 0, done = 0, running = 0, first = -1, errors = [];
    for (let i = 0; i < cells.length; i++) {
        const cell = cells.get(i);
        if (cell.type !== 'code') continue;
        code += 1;
        if (cell.executionCount) done += 1;
        else if (first < 0) first = i;
        if (cell.executionState === 'running') running += 1;  // sent to the kernel, no reply yet
        for (const out of cell.outputs.toJSON()) {
            if (out.output_type === 'error') errors.push(`cell ${i}: ${out.ename}: ${out.evalue}`);
        }
    }
    const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
    return {code, done, running, first_not_run: first, heard: window.kernelHeard || 0, errors,
            status: kernel ? kernel.status : 'none'};
}"""

# Every message between the page and the kernel (counted, and the last few hundred kept without the
# outputs' stream), for telling a slow run from a stalled one and for the failure's report. The
# kernel's status is no guide: ipykernel 7 answers the widget manager's control-channel requests
# while a cell runs, and their 'idle' reaches the page and the server as the kernel's state.
KERNEL_TRACE = """() => {
    const context = window.jupyterapp.shell.currentWidget.sessionContext;
    window.kernelTrace = [];
    window.kernelHeard = 0;
    const hooked = new WeakSet();
    const hook = (kernel) => {
        if (!kernel || hooked.has(kernel)) return;
        hooked.add(kernel);
        kernel.anyMessage.connect((_, args) => {
            const m = args.msg, c = m.content || {}, type = m.header.msg_type;
            if (args.direction === 'recv') window.kernelHeard += 1;
            if (['stream', 'display_data', 'update_display_data', 'comm_msg'].includes(type)) return;
            const parent = m.parent_header && m.parent_header.msg_id ? m.parent_header.msg_id.slice(-8) : '';
            window.kernelTrace.push([new Date().toISOString().slice(11, 23), args.direction, m.channel,
                type, c.status || c.execution_state || '', c.execution_count || '', m.header.msg_id.slice(-8),
                parent]);
            if (window.kernelTrace.length > 300) window.kernelTrace.shift();
        });
    };
    hook(context.session.kernel);
    context.kernelChanged.connect((_, change) => hook(change.newValue));
}"""


def start_run_all(page) -> None:
    """Clear the outputs, restart the kernel and run every cell; return once the new run has begun."""
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


def run_all(page, name: str, lab: Lab, *, stall_s: float = 30, quiet_s: float = 600, tries: int = 3) -> dict:
    """Restart the kernel of notebook `name` (the current one) and run every cell; wait until all ran.

    A busy machine only makes a lesson slower: there is no overall deadline, only one on progress
    (a cell finishing, or any message from the kernel, such as a progress bar's update) of `quiet_s`.
    A *stall* is cells left unrun with none of them sent and waiting for `stall_s`: the run is then
    started again from a restart, up to `tries` runs in all. Every poll goes to `progress.log` beside
    the screenshots, and a stall's kernel messages and server log with it. An error output fails at
    once, with the server's and kernel's log."""
    page.wait_for_function(
        "(name) => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
        " return w && w.context && w.context.path === name"
        " && w.sessionContext && w.sessionContext.session; }",
        arg=name,
        timeout=90_000,
    )
    page.evaluate(KERNEL_TRACE)
    trace = open(ARTIFACTS / Path(name).stem / "progress.log", "w")
    try:
        for attempt in range(1, tries + 1):
            start_run_all(page)
            started = last_change = time.time()
            stalled_since, last = None, None
            while True:
                state = page.evaluate(NOTEBOOK_STATE)
                now = time.time()
                trace.write(f"{now - started:7.1f} s  run {attempt}  {json.dumps(state)}\n")
                trace.flush()
                if state["errors"]:
                    log = lab.log_tail()
                    raise AssertionError(f"{state['errors']}\n--- server and kernel log ---\n{log}")
                if state["code"] and state["done"] == state["code"] and not state["running"]:
                    return state
                if (state["done"], state["heard"]) != last:
                    last, last_change = (state["done"], state["heard"]), now
                stalled = not state["running"] and state["done"] < state["code"]
                stalled_since = (stalled_since or now) if stalled else None
                if stalled_since and now - stalled_since > stall_s:
                    trace.write(f"stall: no cell waiting for the kernel for {stall_s} s, cells not run\n")
                    trace.write(kernel_report(page, lab) + "\n")
                    break
                if now - last_change > quiet_s:
                    raise AssertionError(
                        f"no cell finished and the kernel said nothing in {quiet_s} s: {state}\n"
                        + kernel_report(page, lab)
                    )
                time.sleep(1)
        raise AssertionError(
            f"{tries} runs stalled (cells not run, none waiting, no error): {state}; see {trace.name}\n"
            + kernel_report(page, lab)
        )
    finally:
        trace.close()


def kernel_report(page, lab: Lab) -> str:
    """The page's last messages with the kernel, and the server's and kernel's log."""
    messages = "\n".join(" ".join(map(str, m)) for m in page.evaluate("() => window.kernelTrace")[-60:])
    log = lab.log_tail()
    return f"--- the page's last kernel messages ---\n{messages}\n--- server and kernel log ---\n{log}"


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
    select = control.locator("select")  # a dropdown: choose the next option (the first after the last)
    if select.count():
        values = select.first.locator("option").evaluate_all("os => os.map(o => o.value)")
        now = select.first.input_value()
        select.first.select_option(values[(values.index(now) + 1) % len(values)])
        return
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
    select = control.locator("select")
    if select.count():
        return select.first.input_value()
    value = control.locator(".widget-readout")
    if value.count():
        return value.first.inner_text()
    return control.locator("button.mod-active").first.inner_text()


@pytest.mark.parametrize("notebook", LESSONS, ids=lambda p: p.stem)
def test_lesson_runs_and_every_slider_moves_its_figure(lab, browser_context, notebook):
    page = browser_context.new_page()
    out = ARTIFACTS / notebook.stem
    out.mkdir(parents=True, exist_ok=True)
    try:
        # ?reset: start from an empty workspace, not the notebooks an earlier test left open
        page.goto(f"{lab.url}/lab/tree/{notebook.name}?reset&token={lab.token}", timeout=60_000)
        started = time.perf_counter()
        run_all(page, notebook.name, lab)
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


FIND_CELL = """(start) => {
    const cells = window.jupyterapp.shell.currentWidget.content.model.cells;
    for (let c = 0; c < cells.length; c++) {
        if (cells.get(c).sharedModel.getSource().startsWith(start)) return c;
    }
    return -1;
}"""
ANSWER_AND_RUN = """async ([first, c, source, last]) => {
    const panel = window.jupyterapp.shell.currentWidget;
    panel.content.model.cells.get(c).sharedModel.setSource(source);  // what the learner types
    panel.content.activeCellIndex = first;  // the exercises' first cell (it imports the checker)
    for (let i = first; i <= last; i++) {
        await window.jupyterapp.commands.execute('notebook:run-cell-and-select-next');  // Shift+Enter
    }
}"""
OUTPUT_TEXT = """(c) => {
    const cell = window.jupyterapp.shell.currentWidget.content.model.cells.get(c);
    return cell.outputs.toJSON().map(o => o.text || '').join('');
}"""


def test_a_learner_answers_an_exercise_and_sees_a_tick(lab, browser_context):
    """Lesson 00's exercise 3 answered in JupyterLab: the answer put in its answer cell, the exercise
    cells from the first (which imports the checker) to its check run as Shift+Enter runs them, and
    the check prints ✓ (where the committed run printed 'not answered yet')."""
    notebook = next(p for p in LESSONS if p.stem.startswith("00_"))
    page = browser_context.new_page()
    try:
        page.goto(f"{lab.url}/lab/tree/{notebook.name}?reset&token={lab.token}", timeout=60_000)
        page.wait_for_function(  # the notebook is the current widget, its cells loaded, its kernel settled
            "() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
            " if (!w || !w.content || !w.content.model || w.content.model.cells.length < 10) return false;"
            " const k = w.sessionContext.session && w.sessionContext.session.kernel;"
            " return k && k.connectionStatus === 'connected' && k.status === 'idle'; }",
            timeout=90_000,
        )
        answer_at = page.evaluate(FIND_CELL, "answer_00_3 = ...")
        assert answer_at >= 0, "lesson 00 has no answer cell for exercise 00.3"
        assert page.evaluate(FIND_CELL, 'exercises.check("00.3"') == answer_at + 1, (
            "its check cell follows it"
        )
        assert "not answered yet" in page.evaluate(OUTPUT_TEXT, answer_at + 1)  # as committed
        first = page.evaluate(FIND_CELL, "from minivit import exercises")
        assert 0 <= first < answer_at, "the exercises' first cell imports the checker"
        page.evaluate(ANSWER_AND_RUN, [first, answer_at, "answer_00_3 = ((6, 6), 4)", answer_at + 1])
        deadline = time.perf_counter() + 120
        text = page.evaluate(OUTPUT_TEXT, answer_at + 1)
        while not text.startswith(("✓", "✗")) and time.perf_counter() < deadline:
            time.sleep(0.5)
            text = page.evaluate(OUTPUT_TEXT, answer_at + 1)
        assert text.startswith("✓ 00.3"), text
    finally:
        page.close()
