"""The self-contained HTML report: matplotlib figures inlined as SVG (works offline)."""

from __future__ import annotations

import html
import io
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display; must precede pyplot
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from kubepreempt.sim.engine import SimResult  # noqa: E402

GANTT_NODES = 40  # more rows are unreadable; the busiest nodes are shown


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):]  # drop the XML prolog so it can sit inside HTML


def _colours(priorities: list[int]) -> dict[int, tuple]:
    cmap = plt.get_cmap("viridis")
    ordered = sorted(set(priorities))
    n = max(1, len(ordered) - 1)
    return {p: cmap(i / n) for i, p in enumerate(ordered)}


def _utilisation(res: SimResult) -> str:
    fig, ax = plt.subplots(figsize=(9, 2.8))
    util = res.series.util
    if util:
        ts = [u[0] for u in util] + [res.end]
        ax.step(ts, [u[1] * 100 for u in util] + [util[-1][1] * 100], where="post",
                label="cpu")
        ax.step(ts, [u[2] * 100 for u in util] + [util[-1][2] * 100], where="post",
                label="memory")
    ax.set(title="Requested / allocatable", xlabel="time (s)", ylabel="%", ylim=(0, 105))
    ax.legend(loc="lower right")
    return _svg(fig)


def _pending(res: SimResult, colours: dict[int, tuple]) -> str:
    fig, ax = plt.subplots(figsize=(9, 2.8))
    for prio, points in sorted(res.series.pending.items(), reverse=True):
        ts = [p[0] for p in points] + [res.end]
        ax.step(ts, [p[1] for p in points] + [points[-1][1]], where="post",
                label=f"priority {prio}", color=colours.get(prio))
    ax.set(title="Pending pods by priority", xlabel="time (s)", ylabel="pods")
    if res.series.pending:
        ax.legend(loc="upper right", fontsize="small")
    return _svg(fig)


def _preemptions(res: SimResult, colours: dict[int, tuple]) -> str:
    fig, ax = plt.subplots(figsize=(9, 2.8))
    times = [t for t, _ in res.series.preemptions]
    if times:
        bins = min(60, max(1, len(set(times))))
        ax.hist(times, bins=bins, color="tab:red")
    ax.set(title="Preemptions and evictions over time", xlabel="time (s)", ylabel="victims")
    return _svg(fig)


def _gantt(res: SimResult, colours: dict[int, tuple]) -> str:
    by_node: dict[str, list] = {}
    for rec in res.records.values():
        if rec.bound_at is not None and rec.node:
            by_node.setdefault(rec.node, []).append(rec)
    nodes = sorted(by_node, key=lambda n: (-len(by_node[n]), n))[:GANTT_NODES]
    nodes.sort()
    fig, ax = plt.subplots(figsize=(9, 0.8 + 0.3 * max(1, len(nodes))))
    for row, name in enumerate(nodes):
        for rec in by_node[name]:
            start = rec.bound_at
            stop = rec.ended_at if rec.ended_at is not None else res.end
            signal = rec.preempted_at if rec.preempted_at is not None else stop
            colour = colours.get(rec.pod.priority)
            ax.broken_barh([(start, max(signal - start, 1e-9))], (row - 0.4, 0.8),
                           facecolors=colour, edgecolor="white", linewidth=0.3)
            if stop > signal:  # terminating: still holding its resources
                ax.broken_barh([(signal, stop - signal)], (row - 0.4, 0.8), facecolors=colour,
                               edgecolor="black", hatch="///", linewidth=0.3, alpha=0.6)
    ax.set_yticks(range(len(nodes)), nodes, fontsize="small")
    ax.set(title="Pods per node (colour: priority; hatched: terminating)", xlabel="time (s)")
    handles = [Patch(color=c, label=str(p)) for p, c in sorted(colours.items())][-8:]
    if handles:
        ax.legend(handles=handles, title="priority", fontsize="small", loc="upper left",
                  bbox_to_anchor=(1.01, 1))
    return _svg(fig)


def _node_count(res: SimResult) -> str:
    """Nodes over time (``metrics.autoscaler.nodeCount``) and the autoscaler's totals."""
    a = res.metrics.get("autoscaler")
    if not a:
        return ""
    points = a["nodeCount"]
    fig, ax = plt.subplots(figsize=(9, 2.4))
    if points:
        ts = [p[0] for p in points] + [res.end]
        ax.step(ts, [p[1] for p in points] + [points[-1][1]], where="post")
    ax.set(title="Nodes (Cluster Autoscaler)", xlabel="time (s)", ylabel="nodes")
    rows = "".join(
        f"<tr><td>{html.escape(name)}</td><td>{g['min']}..{g['max']}</td>"
        f"<td>{g['nodesAdded']}</td><td>{g['nodesRemoved']}</td><td>{g['peakNodes']}</td>"
        f"<td>{g['nodeSeconds'] / 3600:.2f}</td></tr>" for name, g in a["groups"].items())
    table = ("<table><tr><th>node group</th><th>size</th><th>added</th><th>removed</th>"
             f"<th>peak</th><th>node-hours</th></tr>{rows}</table>")
    return table + _svg(fig)


def _table(res: SimResult) -> str:
    rows = []
    for name, c in res.metrics["classes"].items():
        mean = "-" if c["meanPending"] is None else f"{c['meanPending']:.1f}"
        p95 = "-" if c["p95Pending"] is None else f"{c['p95Pending']:.1f}"
        cells = (name, c["priority"], c["pods"], c["scheduled"], c["preempted"], c["pending"],
                 mean, p95, f"{c['workLost']:.0f}")
        rows.append("<tr>" + "".join(f"<td>{html.escape(str(x))}</td>" for x in cells)
                    + "</tr>")
    head = ("PriorityClass", "priority", "pods", "scheduled", "preempted", "pending",
            "mean pending (s)", "p95 pending (s)", "work lost (pod-s)")
    return ("<table><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"
            + "".join(rows) + "</table>")


def render_html(res: SimResult, title: str = "kubepreempt simulation") -> str:
    """The report as one HTML string (no external resources)."""
    prios = [r.pod.priority for r in res.records.values()]
    colours = _colours(prios)
    u = res.metrics["utilization"]
    parts = [
        f"<h1>{html.escape(title)}</h1>",
        f"<p>Queue: {res.queue}. Simulated {res.end:.0f} s, {res.processed} events, "
        f"{res.attempts} scheduling attempts, {res.metrics['preemptions']} preemptions. "
        f"Mean cpu utilisation {u['cpuMean'] * 100:.1f}%, peak {u['cpuPeak'] * 100:.1f}%.</p>",
        _table(res), _utilisation(res), _pending(res, colours), _preemptions(res, colours),
        _node_count(res), _gantt(res, colours),
    ]
    style = ("body{font-family:sans-serif;max-width:1000px;margin:auto}"
             "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px}"
             "svg{display:block;max-width:100%;height:auto;margin:1em 0}")
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
            f"</title><style>{style}</style></head><body>{''.join(parts)}</body></html>\n")


def write_report(res: SimResult, path: str | Path, title: str = "kubepreempt simulation") -> None:
    """Write the HTML report to ``path``."""
    Path(path).write_text(render_html(res, title), encoding="utf-8")
