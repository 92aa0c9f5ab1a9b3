"""Look at a graph coloured by per-layer error in Model Explorer, in headless Chromium, and save a
screenshot (how docs/images/model-explorer-first-divergent.png was made).

Not part of the test suite: it needs Model Explorer (``pip install 'ovonehot[explorer]'``), the
``playwright`` Python package (``pip install playwright``) and a Chromium (the distribution's
``chromium`` package does: ``apt-get install chromium``; ``playwright install chromium``
downloads its own build instead).  It starts ``model-explorer GRAPH --node_data_paths DATA``
on a free port, opens it, optionally finds a node by regex (``--node``: Model Explorer's search,
then alt+click on the first match, which centres and selects it: the side panel shows its
attributes and its node data value), waits, saves the screenshot
and stops the server.

Usage::

    ovonehot convert MODEL.xml --to model-explorer -o graph.json
    ovonehot diff MODEL.xml --all-layers --oracle cpu --node-data errors.json
    python scripts/explorer_screenshot.py graph.json errors.json -o shot.png --node 'LayerNorm'
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(url: str, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:  # noqa: S310 - our own local server
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise SystemExit(f"Model Explorer did not answer at {url} within {seconds:.0f} s")


def app_url(port: int, graph: Path, data: Path) -> str:
    """The URL ``model-explorer`` prints: the graph (by Model Explorer's JSON loader) and the
    node data, by absolute path."""
    config = {
        "models": [{"url": str(graph.resolve())}],
        "nodeData": [str(data.resolve())],
        "nodeDataTargets": [""],
    }
    return f"http://127.0.0.1:{port}/?data={urllib.parse.quote(json.dumps(config))}"


def shoot(url: str, out: Path, node: str | None, chromium: str, settle: float) -> None:
    from playwright.sync_api import sync_playwright  # a developer tool's own dependency

    args = [
        "--no-sandbox",
        "--use-angle=swiftshader",
        "--enable-unsafe-swiftshader",
        "--ignore-gpu-blocklist",
    ]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=args)
        page: Any = browser.new_page(viewport={"width": 1600, "height": 1000})
        page.goto(url, timeout=60_000)
        time.sleep(settle)  # the graph is laid out in a web worker and drawn by WebGL
        if node is not None:
            box = page.get_by_placeholder("Search nodes/layers by regex")
            box.click()
            box.fill(node)
            time.sleep(2)
            matches = page.locator("mat-tree-node.leaf .node-label")  # the result rows, in graph order
            if matches.count() == 0:
                raise SystemExit(f"Model Explorer's search found no node for {node!r}")
            matches.first.click(modifiers=["Alt"])  # centre the node and select it (its side panel)
            time.sleep(4)
            page.keyboard.press("Escape")
            time.sleep(1)
        page.screenshot(path=str(out))
        browser.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("graph", type=Path, help="the graph (ovonehot convert MODEL --to model-explorer)")
    ap.add_argument("node_data", type=Path, help="the node data (ovonehot diff --all-layers --node-data)")
    ap.add_argument("-o", "--output", type=Path, required=True, help="the screenshot (.png)")
    ap.add_argument(
        "--node", help="a regex of the node to centre and select (e.g. the first divergent layer)"
    )
    ap.add_argument("--chromium", default=shutil.which("chromium") or "chromium", help="the Chromium binary")
    ap.add_argument("--settle", type=float, default=12.0, help="seconds to let the graph render")
    args = ap.parse_args(argv)
    server = shutil.which("model-explorer")
    if server is None:
        raise SystemExit("model-explorer not found: pip install 'ovonehot[explorer]'")
    port = free_port()
    cmd = [server, str(args.graph), f"--node_data_paths={args.node_data}", "--no_open_in_browser"]
    proc = subprocess.Popen([*cmd, f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        wait_for(f"http://127.0.0.1:{port}/check_health", 60)
        shoot(app_url(port, args.graph, args.node_data), args.output, args.node, args.chromium, args.settle)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
