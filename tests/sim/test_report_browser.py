"""The simulation report in a real headless Chromium (Debian package ``chromium``).

Where a browser is expected — ``CI`` set to a true value, as ``.ci/run`` runs (it installs
Chromium) — a missing browser fails these tests. On a developer's fresh machine without one
they skip with a one-line reason, so the README's test command passes there as printed."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from kubepreempt.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "sim"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
NO_BROWSER = "no chromium: apt-get install chromium to run the report's browser tests"


def browser_expected(env: Mapping[str, str]) -> bool:
    """CI=true (any value but empty, 0, false, no): the browser must be there."""
    return env.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def require_browser(found: str | None, env: Mapping[str, str]) -> str:
    """The browser's path; without one, fail under CI and skip elsewhere."""
    if found:
        return found
    if browser_expected(env):
        pytest.fail(f"{NO_BROWSER} (CI is set: .ci/run installs it)")
    pytest.skip(NO_BROWSER)


def test_missing_browser_fails_under_ci_and_skips_elsewhere() -> None:
    assert require_browser("/usr/bin/chromium", {"CI": "true"}) == "/usr/bin/chromium"
    with pytest.raises(pytest.fail.Exception, match="no chromium"):
        require_browser(None, {"CI": "true"})
    with pytest.raises(pytest.skip.Exception, match="no chromium"):
        require_browser(None, {})
    with pytest.raises(pytest.skip.Exception):
        require_browser(None, {"CI": "false"})


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    path = require_browser(CHROMIUM, os.environ)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=["--no-sandbox"])
        yield b
        b.close()


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def _open(browser: Browser, capsys, tmp_path: Path, *args: str) -> tuple[Page, list[str]]:
    report = tmp_path / "r.html"
    code, _, err = run(capsys, "simulate", *args, "--report", str(report))
    assert code == 0, err
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("request", lambda req: errors.append(f"network: {req.url}")
            if not req.url.startswith(("file:", "data:", "blob:")) else None)
    page.goto(report.as_uri())
    page.wait_for_function("window.Plotly !== undefined")
    return page, errors


def _charts(page: Page) -> dict[str, dict]:
    """Per chart div: SVG count, points drawn, x ranges of its axes, legend/plot boxes."""
    return page.evaluate("""() => Object.fromEntries(
      Array.from(document.querySelectorAll('.plotly-graph-div')).map(d => {
        const fl = d._fullLayout;
        const axes = Object.keys(fl).filter(k => /^xaxis\\d*$/.test(k));
        const leg = d.querySelector('.legend');
        const bg = d.querySelector('.bglayer rect, .draglayer .nsewdrag');
        return [d.id, {
          svgs: d.querySelectorAll('svg.main-svg').length,
          points: d.data.reduce((n, t) => n + (t.x ? t.x.length : 0), 0),
          drawn: d.querySelectorAll('.trace path, .point path, .trace .point').length,
          xranges: axes.map(a => fl[a].range.map(Number)),
          time: d.closest('.chart').classList.contains('time'),
          legend: leg ? leg.getBoundingClientRect().toJSON() : null,
          plot: bg ? bg.getBoundingClientRect().toJSON() : null,
          yticks: Array.from(d.querySelectorAll('.ytick text')).map(t => t.textContent),
          title: fl.title.text || ''}];
      }))""")


def _hover_text(page: Page, chart: str, x: float, y: str) -> str:
    """Move the real mouse to data point (x, category y) of ``chart``; the hover label."""
    box = page.evaluate("""([id, x, y]) => {
        const d = document.getElementById(id); d.scrollIntoView();
        const fl = d._fullLayout, r = d.getBoundingClientRect();
        return [r.left + fl._size.l + fl.xaxis.l2p(x),
                r.top + fl._size.t + fl.yaxis.d2p(y)];
      }""", [chart, x, y])
    # Leave the chart first and wait for any earlier label to go, so the label read below
    # is the new one (plotly redraws hover labels asynchronously).
    page.mouse.move(0, 0)
    page.wait_for_selector(f"#{chart} .hoverlayer .hovertext", state="detached", timeout=5000)
    page.mouse.move(box[0] - 3, box[1])
    page.mouse.move(box[0], box[1])
    page.wait_for_selector(f"#{chart} .hoverlayer .hovertext", timeout=5000)
    lines = page.evaluate("""(id) => Array.from(document.querySelectorAll(
        '#' + id + ' .hoverlayer .hovertext text.nums tspan.line')).map(t => t.textContent)""",
                          chart)
    return "\n".join(lines)


def test_design_doc_example_hover_and_zoom(browser, capsys, tmp_path) -> None:
    # Example 4: c preempts a (grace 60 s) and b (grace 30 s) at 0; f (critical-batch)
    # takes the nomination at 10 s and binds at 60 s when a is gone.
    page, errors = _open(browser, capsys, tmp_path,
                         str(EXAMPLES / "design-doc-example-4.yaml"))
    charts = _charts(page)
    assert set(charts) == {"chart-utilisation", "chart-pending", "chart-preemptions",
                           "chart-gantt"}
    for name, c in charts.items():
        assert c["svgs"] >= 1 and c["points"] > 0 and c["drawn"] > 0, name
    # Counts of 1 and 2 pods: ticks stay whole numbers.
    for name in ("chart-pending", "chart-preemptions"):
        assert charts[name]["yticks"] and all(re.fullmatch(r"\d+", t)
                                              for t in charts[name]["yticks"]), name
    # At 45 s only a (terminating, hatched) is on node-1.
    text = _hover_text(page, "chart-gantt", 45.0, "node-1")
    assert text.splitlines() == ["pod default/a", "node node-1", "class low (priority 100)",
                                 "bound 0 s, ended 60 s", "preempted at 0 s by default/c",
                                 "(terminating)"]
    # b overlaps a, so it has the second lane of node-1.
    text = _hover_text(page, "chart-gantt", 20.0, "node-1 (2)")
    assert text.splitlines() == ["pod default/b", "node node-1", "class low (priority 100)",
                                 "bound 0 s, ended 30 s", "preempted at 0 s by default/c",
                                 "(terminating)"]
    # Zoom: drag over 20..40 s on the utilisation chart; every time axis follows.
    start = page.evaluate("""() => {const d = document.getElementById('chart-utilisation');
        d.scrollIntoView(); const fl = d._fullLayout, r = d.getBoundingClientRect();
        return [r.left + fl._size.l + fl.xaxis.l2p(20), r.left + fl._size.l + fl.xaxis.l2p(40),
                r.top + fl._size.t + fl._size.h / 2];}""")
    page.mouse.move(start[0], start[2])
    page.mouse.down()
    page.mouse.move((start[0] + start[1]) / 2, start[2], steps=4)
    page.mouse.move(start[1], start[2], steps=4)
    page.mouse.up()
    page.wait_for_timeout(500)
    for name, c in _charts(page).items():
        for lo, hi in c["xranges"]:
            assert lo == pytest.approx(20, abs=1) and hi == pytest.approx(40, abs=1), name
    assert errors == []


def test_busy_day_report_tells_the_truth(browser, capsys, tmp_path) -> None:
    page, errors = _open(browser, capsys, tmp_path, str(EXAMPLES / "busy-day.yaml"),
                         "--seed", "1")
    charts = _charts(page)
    time_charts = {n: c for n, c in charts.items() if c["time"]}
    assert set(time_charts) == set(charts)
    ranges = {tuple(map(round, r)) for c in charts.values() for r in c["xranges"]}
    assert len(ranges) == 1 and next(iter(ranges))[0] == 0  # one time axis: [0, end]
    for name, c in charts.items():
        assert c["svgs"] >= 1 and c["points"] > 0 and c["drawn"] > 0, name
        if c["legend"] and c["plot"]:  # the legend sits above the plot, not on it
            assert c["legend"]["bottom"] <= c["plot"]["top"] + 1, name
    # Counts are whole numbers on their axes.
    for name in ("chart-pending", "chart-preemptions"):
        assert charts[name]["yticks"] and all(re.fullmatch(r"\d+", t)
                                              for t in charts[name]["yticks"]), name
    # Preemption bins: about 40 over the run, 1/2/5 x 10^k wide, covering [0, end].
    prem = page.evaluate("""() => document.getElementById('chart-preemptions').data
        .map(t => ({name: t.name, x: Array.from(t.x), y: Array.from(t.y),
                    w: Array.from(t.width)}))""")
    width = prem[0]["w"][0]
    assert width in (100, 200, 500) and prem[0]["x"][0] == width / 2
    assert "node removal" in charts["chart-preemptions"]["title"]
    # Header, table and chart count the same pods.
    header = page.inner_text("#counts")
    total = page.evaluate("""() => Array.from(document.querySelectorAll('#classes tr.total td'))
        .map(td => td.textContent)""")
    head = page.evaluate("""() => Array.from(document.querySelectorAll('#classes th'))
        .map(th => th.textContent)""")
    assert head[4:6] == ["preempted", "evictedNodeRemoved"]  # each cause in its column
    pre, evi = int(total[4]), int(total[5])
    assert f"{pre} preempted by the scheduler, {evi} lost with their node," in header
    by_name = {t["name"]: sum(t["y"]) for t in prem}
    assert by_name.get("scheduler preemption", 0) == pre
    assert sum(by_name.values()) - by_name.get("scheduler preemption", 0) == evi
    # ... and the pods the JSON reports: preemptedAt set (node removal included).
    _, out, _ = run(capsys, "simulate", str(EXAMPLES / "busy-day.yaml"), "--seed", "1",
                    "-o", "json")
    data = json.loads(out)
    assert pre + evi == sum(1 for p in data["pods"].values() if p["preemptedAt"] is not None)
    removed = {e["pod"] for e in data["events"]
               if e["type"] == "evicted" and e["detail"] == "node removed"
               and data["pods"][e["pod"]]["preemptedAt"] == e["time"]}
    assert removed and by_name["node removed"] == len(removed)
    assert (data["metrics"]["preemptions"], data["metrics"]["evictedNodeRemoved"]) == (pre, evi)
    # Classes are named in the pending facets and the Gantt legend.
    names = page.evaluate("""() => Array.from(document.querySelectorAll(
        '#chart-pending .annotation-text, #chart-gantt .legendtext')).map(t => t.textContent)""")
    assert {"urgent (priority 100000)", "web (priority 1000)", "batch (priority 0)",
            "urgent", "web", "batch"} <= set(names)
    assert errors == []


def test_kueue_panels(browser, capsys, tmp_path) -> None:
    # team-b's Job (8 pods) borrows at 0 s; team-a's Job arrives at 10 s and reclaims;
    # b's suspended Job is inactive at once: its quota is released and b requeued 1 s
    # later (the Kueue reconcile delay), a is admitted at 11.027 s (Kueue's backoff tick),
    # its pods bind when b's have run out their 5 s grace (15 s) and run 50 s; b is
    # readmitted at 65 s.
    page, errors = _open(browser, capsys, tmp_path, str(EXAMPLES / "kueue-reclaim.yaml"))
    charts = _charts(page)
    for name in ("chart-kueue-usage", "chart-kueue-borrowed", "chart-kueue-share",
                 "chart-kueue-cohorts", "chart-kueue-waits"):
        assert charts[name]["points"] > 0 and charts[name]["drawn"] > 0, name
    waits = page.evaluate("""() => Object.fromEntries(document.getElementById(
        'chart-kueue-waits').data.map(t => [t.name, Array.from(t.x).map(
            (x, i) => [x, t.y[i]])]))""")
    assert {k: [[round(x, 6) for x in p] for p in v] for k, v in waits.items()} == {
        "team-a": [[11.027, 1.027]], "team-b": [[0.0, 0.0], [65.0, 54.0]]}
    borrowed = page.evaluate("""() => document.getElementById('chart-kueue-borrowed').data
        .filter(t => t.name === 'team-b').map(t => [Array.from(t.x), Array.from(t.y)])[0]""")
    assert borrowed[1][0] == 4000  # 8 cpu on a nominal 4: 4 cpu (4000m) borrowed at 0 s
    usage = page.evaluate("""() => Object.fromEntries(document.getElementById(
        'chart-kueue-usage').data.map(t => [t.name, t.y[0]]))""")
    # b's 8 cpu from 0 s; a's 4 cpu from its admission at 11.027 s.
    assert usage == {"team-b default/cpu": 8000, "team-a default/cpu": 4000}
    text = _hover_text(page, "chart-gantt", 12.0, "node-1")
    assert text.splitlines() == [
        "pod team-b/b1-0", "workload team-b/job-b1", "node node-1", "class (priority 0)",
        "bound 0 s, ended 15 s", "deleted at 10 s: workload team-b/job-b1 preempted by "
        "Kueue (InCohortReclamation) for team-a/job-a1", "(terminating)"]
    header = page.inner_text("#counts")
    assert "0 preempted by the scheduler, 8 deleted by Kueue preemption" in header
    assert errors == []
