"""The self-contained interactive HTML report of a simulation.

Plotly figures with plotly.js inlined once (works offline, no CDN). Every time chart spans
``[0, end]`` and zooming one zooms all of them (a small script syncs the x ranges).
Preemption and eviction counts are pods whose record has ``preemptedAt``, each under its
cause (``disruption``: ``metrics.classes.*.preempted``, ``.evictedKubeletAdmission``,
``.evictedNodePressure``, ``.evictedScaleDown``, ``.evictedNodeRemoved``); so the header,
the table and the chart agree.
"""

from __future__ import annotations

import html
import math
import re
from pathlib import Path
from typing import Any

import plotly.graph_objects as go
from plotly.offline import get_plotlyjs
from plotly.subplots import make_subplots

from kubepreempt.sim import metrics as m
from kubepreempt.sim.engine import SimResult

GANTT_NODES = 40  # more rows are unreadable; the busiest nodes are shown
TARGET_BINS = 40  # preemption chart: about this many bins over the run
PALETTE = ("#636efa", "#ef553b", "#00cc96", "#ab63fa", "#ffa15a", "#19d3f3", "#ff6692",
           "#b6e880", "#ff97ff", "#fecb52")
CAUSE_COLOURS = ("#7f3b08", "#b35806", "#542788", "#8073ac", "#2d004b", "#999999", "#01665e")
CAUSES = ("scheduler preemption", "kubelet admission", "node pressure", "scale-down",
          "node removed", "other eviction", "Kueue preemption")
KUEUE = CAUSES[6]
# the metrics key of each disruption cause -> its label here
CAUSE_OF = dict(zip(m.DISRUPTIONS, CAUSES[:5], strict=True))
_SAID = {m.BY_KUBELET_ADMISSION: "evicted by kubelet admission",
         m.BY_NODE_PRESSURE: "evicted by node pressure",
         m.BY_SCALE_DOWN: "evicted by the autoscaler's scale-down",
         m.BY_NODE_REMOVAL: "lost with their node"}
_KUEUE_DELETE = re.compile(r"workload (\S+) preempted$")


def _cause(etype: str, detail: str) -> str:
    if etype == m.PREEMPTED:
        return CAUSES[0]
    for prefix, cause in (("kubelet admission", CAUSES[1]), ("node pressure", CAUSES[2]),
                          ("scale-down", CAUSES[3]), ("node removed", CAUSES[4])):
        if detail.startswith(prefix):
            return cause
    return CAUSES[5]


def signalled(res: SimResult) -> dict[str, tuple[float, str, str]]:
    """Pod key -> (time, cause, detail) for every pod preempted or evicted (those with
    ``preemptedAt``) and every pod deleted because Kueue preempted its workload."""
    first: dict[str, tuple[float, str, str]] = {}
    kueue_by = {(e["workload"], e["time"]): f"({e['reason']}) for {e['by']}"
                for e in (res.metrics.get("kueue") or {}).get("events", [])
                if e["type"] == "preempted"}
    out = {}
    for e in res.events:
        if e.type in (m.PREEMPTED, m.EVICTED) and e.pod not in first:
            first[e.pod] = (e.time, _cause(e.type, e.detail), e.detail)
        elif e.type == m.TERMINATED and (hit := _KUEUE_DELETE.match(e.detail)):
            wl = hit.group(1)
            by = kueue_by.get((wl, e.time))
            out[e.pod] = (e.time, KUEUE, f"workload {wl} preempted by Kueue"
                          + (f" {by}" if by else ""))
    for key, rec in res.records.items():
        if rec.preempted_at is not None:
            t, cause, detail = first.get(key, (rec.preempted_at, CAUSES[5], ""))
            out[key] = (rec.preempted_at, CAUSE_OF.get(rec.disruption, cause), detail)
    return out


def _nice_step(span: float, bins: int) -> float:
    """A 1/2/5 x 10^k bin width giving about ``bins`` bins over ``span``."""
    raw = max(span, 1e-9) / bins
    k = 10 ** math.floor(math.log10(raw))
    return next(f * k for f in (1, 2, 5, 10) if f * k >= raw)


def _int_axis(peak: float) -> dict[str, Any]:
    """Y axis settings with whole-number ticks for counts."""
    return {"tickformat": "d", "dtick": max(1, math.ceil(peak / 4)), "rangemode": "tozero",
            "range": [0, max(1, peak) * 1.1]}


def _steps(points: list, end: float, col: int = 1) -> tuple[list[float], list[float]]:
    xs = [p[0] for p in points] + [end]
    ys = [p[col] for p in points] + [points[-1][col]]
    return xs, ys


class _Report:
    def __init__(self, res: SimResult, title: str) -> None:
        self.res, self.title = res, title
        self.end = max(res.end, 1e-9)
        self.charts: list[str] = []
        classes: dict[str, int] = {}
        for rec in res.records.values():
            classes.setdefault(m.class_name(rec.pod), rec.pod.priority)
        self.classes = sorted(classes, key=lambda c: (-classes[c], c))
        self.colour = {c: PALETTE[i % len(PALETTE)] for i, c in enumerate(self.classes)}
        self.by_priority: dict[int, list[str]] = {}
        for c in self.classes:
            self.by_priority.setdefault(classes[c], []).append(c)
        self.signals = signalled(res)

    # ---- plumbing ----
    def add(self, fig: go.Figure, name: str, height: int, time_axis: bool = True,
            facets: bool = False) -> None:
        # Legends sit above the plot (never over data) and margins are fixed, so every
        # time chart has the same plot width and the time axes line up.
        fig.update_layout(height=height, margin={"l": 70, "r": 20, "t": 80, "b": 40},
                          template="plotly_white", hovermode="closest",
                          legend={"orientation": "h", "yanchor": "bottom", "y": 1.0,
                                  "x": 0, "xanchor": "left"},
                          title={"y": 1, "yanchor": "top", "pad": {"t": 12}})
        if time_axis:
            fig.update_xaxes(range=[0, self.end])
            if not facets:
                fig.update_xaxes(title_text="time (s)")
        div = fig.to_html(full_html=False, include_plotlyjs=False, div_id=f"chart-{name}",
                          config={"displaylogo": False, "responsive": True})
        cls = "chart time" if time_axis else "chart"
        self.charts.append(f"<div class='{cls}' data-chart='{name}'>{div}</div>")

    # ---- charts ----
    def utilisation(self) -> None:
        fig = go.Figure()
        util = self.res.series.util
        if util:
            for col, label in ((1, "cpu"), (2, "memory")):
                xs, ys = _steps(util, self.end, col)
                fig.add_scatter(x=xs, y=[y * 100 for y in ys], name=label, line_shape="hv",
                                mode="lines",
                                hovertemplate=f"{label} %{{y:.1f}}% at %{{x:g}} s<extra></extra>")
        fig.update_layout(title="Requested / allocatable (%)")
        fig.update_yaxes(range=[0, 105], title_text="%")
        self.add(fig, "utilisation", 260)

    def pending(self) -> None:
        """One facet per priority so equal lines never hide each other."""
        series = sorted(self.res.series.pending.items(), reverse=True)
        if not series:
            return
        names = [", ".join(self.by_priority.get(p, [f"(priority {p})"])) for p, _ in series]
        fig = make_subplots(rows=len(series), cols=1, shared_xaxes=True,
                            vertical_spacing=min(0.08, 0.3 / len(series)),
                            subplot_titles=[
                                n if n.startswith("(priority") else f"{n} (priority {p})"
                                for n, (p, _) in zip(names, series, strict=True)])
        for row, ((_, points), name) in enumerate(zip(series, names, strict=True), 1):
            xs, ys = _steps(points, self.end)
            colour = self.colour.get(name.split(", ")[0], PALETTE[0])
            fig.add_scatter(x=xs, y=ys, name=name, line_shape="hv", showlegend=False, mode="lines",
                            line_color=colour, fill="tozeroy", row=row, col=1,
                            hovertemplate=f"{html.escape(name)}: %{{y}} pending at "
                                          "%{x:g} s<extra></extra>")
            fig.update_yaxes(row=row, col=1, **_int_axis(max(ys)))
        fig.update_layout(title="Pending pods per PriorityClass")
        fig.update_xaxes(title_text="time (s)", row=len(series), col=1)
        self.add(fig, "pending", 90 + 110 * len(series), facets=True)

    def preemptions(self) -> None:
        width = _nice_step(self.end, TARGET_BINS)
        nbins = max(1, math.ceil(self.end / width))
        counts = {c: [0] * nbins for c in CAUSES}
        for t, cause, _ in self.signals.values():
            counts[cause][min(nbins - 1, int(t // width))] += 1
        fig = go.Figure()
        centres = [(i + 0.5) * width for i in range(nbins)]
        for cause, colour in zip(CAUSES, CAUSE_COLOURS, strict=True):
            if any(counts[cause]):
                fig.add_bar(x=centres, y=counts[cause], width=[width] * nbins, name=cause,
                            marker_color=colour,
                            hovertemplate=f"{cause}: %{{y}} pods in [%{{x:g}} s ± {width / 2:g} s]"
                                          "<extra></extra>")
        totals = [sum(counts[c][i] for c in CAUSES) for i in range(nbins)]
        fig.update_layout(barmode="stack", bargap=0,
                          title=f"Pods preempted or evicted per {width:g} s (all causes: node "
                                "removal and Kueue preemption included)")
        fig.update_yaxes(title_text="pods", **_int_axis(max(totals, default=0)))
        self.add(fig, "preemptions", 280)

    def node_count(self) -> str:
        a = self.res.metrics.get("autoscaler")
        if not a:
            return ""
        points = a["nodeCount"]
        fig = go.Figure()
        if points:
            xs, ys = _steps(points, self.end)
            fig.add_scatter(x=xs, y=ys, name="nodes", line_shape="hv", mode="lines",
                            hovertemplate="%{y} nodes at %{x:g} s<extra></extra>")
            fig.update_yaxes(**_int_axis(max(ys)))
        fig.update_layout(title="Nodes (Cluster Autoscaler)")
        fig.update_yaxes(title_text="nodes")
        self.add(fig, "nodes", 240)
        rows = "".join(
            f"<tr><td>{html.escape(name)}</td><td>{g['min']}..{g['max']}</td>"
            f"<td>{g['nodesAdded']}</td><td>{g['nodesRemoved']}</td><td>{g['peakNodes']}</td>"
            f"<td>{g['nodeSeconds'] / 3600:.2f}</td></tr>" for name, g in a["groups"].items())
        return ("<table><tr><th>node group</th><th>size</th><th>added</th><th>removed</th>"
                f"<th>peak</th><th>node-hours</th></tr>{rows}</table>")

    def pod_groups(self) -> str:
        """The PodGroups table (``metrics.podGroups``; empty when none were played)."""
        groups = self.res.metrics.get("podGroups")
        if not groups:
            return ""

        def num(v: float | None) -> str:
            return "-" if v is None else f"{v:.1f}"

        rows = "".join(
            f"<tr><td>{html.escape(key)}</td><td>{g['policy']}/{g['disruptionMode']}</td>"
            f"<td>{g['minCount']}</td><td>{g['priority']}</td><td>{g['podsCreated']}</td>"
            f"<td>{num(g['readyAt'])}</td><td>{num(g['admittedAt'])}</td>"
            f"<td>{num(g['wait'])}</td><td>{g['cycles']}</td><td>{g['preemptedPods']}</td>"
            "</tr>" for key, g in groups["byGroup"].items())
        return ("<table id='pod-groups'><caption>PodGroups: "
                f"{groups['admitted']} of {groups['groups']} admitted, "
                f"{groups['preempted']} preempted as victims; wait: from ready (the PodGroup "
                "and minCount pods exist) to minCount pods bound.</caption><tr><th>PodGroup"
                "</th><th>policy</th><th>minCount</th><th>prio</th><th>pods</th><th>ready s"
                "</th><th>admitted s</th><th>wait s</th><th>cycles</th><th>preempted pods</th>"
                f"</tr>{rows}</table>")

    def kueue(self) -> None:
        k = self.res.metrics.get("kueue")
        if not k:
            return
        queues = k["clusterQueues"]
        fig = go.Figure()
        for cq, q in queues.items():
            for fr, points in q.get("usage", {}).items():
                if any(u for _, u in points):
                    xs, ys = _steps(points, self.end)
                    label = f"{cq} {fr}"
                    fig.add_scatter(x=xs, y=ys, name=label, line_shape="hv", mode="lines",
                                    hovertemplate=f"{html.escape(label)}: %{{y:g}} at "
                                                  "%{x:g} s<extra></extra>")
        fig.update_layout(title="Kueue: quota usage per ClusterQueue and flavor/resource "
                                "(canonical units: milli-CPU, bytes, counts)")
        self.add(fig, "kueue-usage", 300)
        for key, title, name, fmt in (
                ("borrowed", "Kueue: quota borrowed above nominal per ClusterQueue "
                 "(canonical units, summed over flavor-resources)", "kueue-borrowed", "%{y:g}"),
                ("weightedShare", "Kueue: weighted share per ClusterQueue (-1: infinite)",
                 "kueue-share", "%{y:.3g}")):
            fig = go.Figure()
            for cq, q in queues.items():
                if q[key]:
                    xs, ys = _steps(q[key], self.end)
                    fig.add_scatter(x=xs, y=ys, name=cq, line_shape="hv", mode="lines",
                                    hovertemplate=f"{html.escape(cq)}: {fmt} at %{{x:g}} s"
                                                  "<extra></extra>")
            fig.update_layout(title=title)
            self.add(fig, name, 280)
        if k["cohorts"]:
            fig = go.Figure()
            for co, c in k["cohorts"].items():
                if c["utilization"]:
                    xs, ys = _steps(c["utilization"], self.end)
                    fig.add_scatter(x=xs, y=[y * 100 for y in ys], name=co, line_shape="hv",
                                    mode="lines",
                                    hovertemplate=f"{html.escape(co)}: %{{y:.1f}}% at "
                                                  "%{x:g} s<extra></extra>")
            fig.update_layout(title="Kueue: cohort utilisation (busiest resource / nominal, %)")
            self.add(fig, "kueue-cohorts", 260)
        fig = go.Figure()
        for cq, points in admission_waits(k).items():
            fig.add_scatter(x=[p[0] for p in points], y=[p[1] for p in points], name=cq,
                            mode="markers", text=[p[2] for p in points],
                            hovertemplate="%{text}<br>admitted at %{x:g} s after waiting "
                                          "%{y:g} s<extra>" + html.escape(cq) + "</extra>")
        fig.update_layout(title="Kueue: admission waits (queued or requeued to admitted)")
        fig.update_yaxes(title_text="wait (s)", rangemode="tozero")
        self.add(fig, "kueue-waits", 280)

    def gantt(self) -> None:
        by_node: dict[str, list] = {}
        for rec in self.res.records.values():
            if rec.bound_at is not None and rec.node:
                by_node.setdefault(rec.node, []).append(rec)
        nodes = sorted(by_node, key=lambda n: (-len(by_node[n]), n))[:GANTT_NODES]
        nodes.sort()
        owners = _workload_of(self.res)
        bars: dict[tuple[str, bool], dict[str, list]] = {}
        rows: list[str] = []
        for node in nodes:
            lanes: list[float] = []  # per lane, when its last bar ends
            for rec in sorted(by_node[node], key=lambda r: (r.bound_at, r.pod.key)):
                start = rec.bound_at
                stop = rec.ended_at if rec.ended_at is not None else self.res.end
                # Pods overlapping in time get their own lane so no bar hides another.
                lane = next((i for i, busy in enumerate(lanes) if busy <= start), len(lanes))
                if lane == len(lanes):
                    lanes.append(stop)
                    rows.append(node if lane == 0 else f"{node} ({lane + 1})")
                lanes[lane] = max(stop, start)
                row = node if lane == 0 else f"{node} ({lane + 1})"
                sig = self.signals.get(rec.pod.key)
                signal = min(stop, sig[0]) if sig is not None else stop
                cname = m.class_name(rec.pod)
                why = self._why(rec)
                wl = owners.get(rec.pod.key)
                text = (f"pod {rec.pod.key}" + (f"<br>workload {wl}" if wl else "")
                        + f"<br>node {node}<br>class {cname}"
                        + ("" if cname.startswith("(") else f" (priority {rec.pod.priority})")
                        + f"<br>bound {start:g} s, ended {stop:g} s<br>{why}")
                for part, (a, b) in ((False, (start, signal)), (True, (signal, stop))):
                    if b > a or (not part and b == a):
                        col = bars.setdefault((cname, part), {"y": [], "base": [], "x": [],
                                                              "text": []})
                        col["y"].append(row)
                        col["base"].append(a)
                        col["x"].append(max(b - a, 1e-9))
                        col["text"].append(text + ("<br>(terminating)" if part else ""))
        fig = go.Figure()
        for cname in self.classes:
            for part in (False, True):
                col = bars.get((cname, part))
                if not col:
                    continue
                fig.add_bar(orientation="h", name=cname + (" (terminating)" if part else ""),
                            legendgroup=cname, y=col["y"], base=col["base"], x=col["x"],
                            hovertext=col["text"], hovertemplate="%{hovertext}<extra></extra>",
                            marker={"color": self.colour[cname], "line": {"color": "white",
                                                                          "width": 0.5},
                                    "pattern": {"shape": "/" if part else ""}},
                            opacity=0.6 if part else 1.0)
        fig.update_layout(barmode="overlay", title="Pods per node, one lane per overlapping "
                          "pod (colour: PriorityClass; hatched: terminating)",
                          legend={"title": {"text": "PriorityClass"}})
        fig.update_yaxes(categoryorder="array", categoryarray=rows[::-1], type="category")
        self.add(fig, "gantt", 160 + 22 * max(1, len(rows)))

    def _why(self, rec: m.PodRecord) -> str:
        sig = self.signals.get(rec.pod.key)
        if sig is not None:
            t, cause, detail = sig
            if cause == CAUSES[0]:
                return f"preempted at {t:g} s {detail}".rstrip()
            if cause == KUEUE:
                return f"deleted at {t:g} s: {detail}"
            return f"evicted at {t:g} s ({detail or cause})"
        if rec.phase == "Succeeded":
            return "completed"
        if rec.ended_at is None:
            return f"{rec.phase.lower()} at the end of the run"
        for e in self.res.events:
            if e.pod == rec.pod.key and e.type == m.TERMINATED and e.detail:
                return f"terminated ({e.detail})"
        return f"ended ({rec.phase})"

    # ---- tables ----
    def summary(self) -> tuple[str, str]:
        res = self.res
        per: dict[str, int] = dict.fromkeys(self.classes, 0)  # deleted by Kueue
        for key, (_, cause, _) in self.signals.items():
            if cause == KUEUE:
                per[m.class_name(res.records[key].pod)] += 1
        # each disruption cause under its own metrics name; evictions only if any
        causes = [m.BY_SCHEDULER, *(k for k in m.DISRUPTIONS[1:] if res.metrics.get(k))]
        rows = []
        tot = {"pods": 0, "scheduled": 0, **dict.fromkeys(causes, 0), "kq": 0, "pending": 0}
        kq = "kueue" in res.metrics
        for name, c in res.metrics["classes"].items():
            mean = "-" if c["meanPending"] is None else f"{c['meanPending']:.1f}"
            p95 = "-" if c["p95Pending"] is None else f"{c['p95Pending']:.1f}"
            cells = (name, c["priority"], c["pods"], c["scheduled"], *(c[k] for k in causes),
                     *([per.get(name, 0)] if kq else []), c["pending"], mean, p95,
                     f"{c['workLost']:.0f}")
            for k in ("pods", "scheduled", *causes, "pending"):
                tot[k] += c[k]
            tot["kq"] += per.get(name, 0)
            rows.append("<tr>" + "".join(f"<td>{html.escape(str(x))}</td>" for x in cells)
                        + "</tr>")
        rows.append("<tr class='total'><td>all</td><td></td>" + "".join(
            f"<td>{tot[k]}</td>" for k in ("pods", "scheduled", *causes,
                                           *(["kq"] if kq else []), "pending"))
            + "<td></td><td></td><td></td></tr>")
        head = ("PriorityClass", "priority", "pods", "scheduled", *causes,
                *(["deleted by Kueue"] if kq else []), "pending at end", "mean pending (s)",
                "p95 pending (s)", "work lost (pod-s)")
        table = ("<table id='classes'><caption>Pods per PriorityClass. scheduled: bound at "
                 "least once; preempted: victims of scheduler preemption; "
                 "evictedKubeletAdmission, evictedNodePressure, evictedScaleDown, "
                 "evictedNodeRemoved (shown when any): evicted by kubelet admission, by "
                 "node pressure, by the Cluster Autoscaler's scale-down, lost with their "
                 "node; "
                 + ("deleted by Kueue: pods of a workload Kueue preempted; " if kq else "")
                 + "pending: never bound by the end.</caption><tr>"
                 + "".join(f"<th>{h}</th>" for h in head)
                 + "</tr>" + "".join(rows) + "</table>")
        u = res.metrics["utilization"]
        evicted = "".join(f"{tot[k]} {_SAID[k]}, " for k in causes[1:])
        header = (f"<p id='counts'>Queue: {html.escape(res.queue)}. Simulated {res.end:g} s, "
                  f"{res.processed} events, {res.attempts} scheduling attempts. Pods: "
                  f"{tot['pods']} created, {tot['scheduled']} scheduled, "
                  f"{tot[m.BY_SCHEDULER]} preempted by the scheduler, {evicted}"
                  + (f"{tot['kq']} deleted by Kueue preemption, " if kq else "")
                  + f"{tot['pending']} "
                  f"pending at the end. Mean cpu utilisation {u['cpuMean'] * 100:.1f}%, "
                  f"peak {u['cpuPeak'] * 100:.1f}%.</p>")
        return header, table

    def render(self) -> str:
        header, table = self.summary()
        self.utilisation()
        self.pending()
        self.preemptions()
        nodes_table = self.node_count() + self.pod_groups()
        self.kueue()
        self.gantt()
        style = ("body{font-family:sans-serif;max-width:1100px;margin:auto;padding:0 1em}"
                 "table{border-collapse:collapse;margin:1em 0}caption{text-align:left;"
                 "font-size:small;caption-side:bottom}td,th{border:1px solid #ccc;"
                 "padding:2px 6px}tr.total td{font-weight:bold}.chart{margin:1em 0}")
        return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>"
                f"{html.escape(self.title)}</title><style>{style}</style>"
                f"<script type='text/javascript'>{get_plotlyjs()}</script></head><body>"
                f"<h1>{html.escape(self.title)}</h1>{header}{table}{nodes_table}"
                f"<p>Drag on any chart to zoom the time axis of all charts; double-click "
                f"to reset.</p>{''.join(self.charts)}<script>{_SYNC_JS}</script>"
                f"</body></html>\n")


# Zooming one time chart applies the same x range to the others (all share [0, end]).
_SYNC_JS = """
(function(){
  var divs = Array.prototype.slice.call(document.querySelectorAll('.chart.time .plotly-graph-div'));
  var busy = false;
  divs.forEach(function(src){
    src.on('plotly_relayout', function(ev){
      if (busy) return;
      var upd = {}, key;
      for (key in ev) {
        if (/^xaxis\\d*\\.range\\[[01]\\]$/.test(key) || /^xaxis\\d*\\.autorange$/.test(key)) {
          upd[key.replace(/^xaxis\\d*/, 'xaxis')] = ev[key];
        }
      }
      if (!Object.keys(upd).length) return;
      busy = true;
      var done = divs.filter(function(d){ return d !== src; }).map(function(d){
        var u = {};
        Object.keys(d.layout).filter(function(k){ return /^xaxis\\d*$/.test(k); })
          .forEach(function(ax){ for (var k in upd) u[k.replace('xaxis', ax)] = upd[k]; });
        return Plotly.relayout(d, u);
      });
      Promise.all(done).then(function(){ busy = false; }, function(){ busy = false; });
    });
  });
})();
"""


def admission_waits(k: dict[str, Any]) -> dict[str, list[tuple[float, float, str]]]:
    """Per ClusterQueue: (admission time, wait, workload) from ``metrics.kueue.events``;
    the wait runs from the workload's creation or last requeue, as ``meanAdmissionWait``."""
    since: dict[str, float] = {}
    out: dict[str, list[tuple[float, float, str]]] = {}
    for e in k["events"]:
        wl = e["workload"]
        if e["type"] in ("created", "requeued"):
            since[wl] = e["time"]
        elif e["type"] == "admitted" and wl in since:
            out.setdefault(e["clusterQueue"], []).append(
                (e["time"], e["time"] - since.pop(wl), wl))
    return out


def _workload_of(res: SimResult) -> dict[str, str]:
    """Pod key -> Kueue workload key (the actor names pods ``<job or workload>-<n>``)."""
    k = res.metrics.get("kueue")
    if not k:
        return {}
    pattern: dict[str, str] = {}
    for e in k["events"]:
        ns, _, name = e["workload"].partition("/")
        base = name[4:] if name.startswith("job-") else name
        pattern[f"{ns}/{base}"] = e["workload"]
    out = {}
    for key in res.records:
        match = re.fullmatch(r"(.+)-\d+", key)
        if match and match.group(1) in pattern:
            out[key] = pattern[match.group(1)]
    return out


def render_html(res: SimResult, title: str = "kubepreempt simulation") -> str:
    """The report as one HTML string (plotly.js inline; no external resources)."""
    return _Report(res, title).render()


def write_report(res: SimResult, path: str | Path, title: str = "kubepreempt simulation") -> None:
    """Write the HTML report to ``path``."""
    Path(path).write_text(render_html(res, title), encoding="utf-8")

