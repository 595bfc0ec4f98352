"""The sweep's self-contained HTML report: each metric vs variant with confidence intervals.

Figures are matplotlib SVG inlined in the page (no network, no scripts), as the
simulation report. Metrics named ``group.member.measure`` (``classes.batch.workLost``,
``clusterQueues.team-a.…``) share one figure per ``group.*.measure``, one series per member.
"""

from __future__ import annotations

import html
import io
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display; must precede pyplot
import matplotlib.pyplot as plt  # noqa: E402

from kubepreempt.sweep.display import cell, families, fmt, interval  # noqa: E402
from kubepreempt.sweep.run import SweepResult  # noqa: E402
from kubepreempt.sweep.spec import RankBy  # noqa: E402
from kubepreempt.sweep.stats import Estimate  # noqa: E402

MAX_SERIES = 10  # more members in one figure are unreadable; the rest get their own


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):]  # drop the XML prolog so it can sit inside HTML


def _figure(title: str, series: list[tuple[str, str]], variants: list[str],
            summaries: dict[str, dict[str, Estimate]]) -> str:
    """Horizontal error bars: one row per variant, one offset marker per series."""
    fig, ax = plt.subplots(figsize=(9, 0.9 + 0.45 * len(variants) * max(1, len(series)) ** 0.5))
    step = 0.8 / max(1, len(series))
    for k, (label, metric) in enumerate(series):
        ys, xs, lo, hi = [], [], [], []
        for row, variant in enumerate(variants):
            est = summaries[variant].get(metric)
            if est is None or est.mean is None:
                continue
            ys.append(row - 0.4 + step * (k + 0.5))
            xs.append(est.mean)
            lo.append(est.mean - est.low if est.low is not None else 0.0)
            hi.append(est.high - est.mean if est.high is not None else 0.0)
        ax.errorbar(xs, ys, xerr=[lo, hi], fmt="o", capsize=3, label=label or None)
    ax.set_yticks(range(len(variants)), variants, fontsize="small")
    ax.invert_yaxis()  # the sweep file's first variant on top
    ax.set(title=title, xlabel="mean and confidence interval over seeds")
    ax.grid(axis="x", alpha=0.3)
    if any(label for label, _ in series):
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))
    return _svg(fig)


def _table(head: Sequence[str], rows: list[Sequence[object]]) -> str:
    cells = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row)
                    + "</tr>" for row in rows)
    return ("<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"
            + cells + "</table>")


def render_html(result: SweepResult, patterns: Sequence[str] = (), by: RankBy | None = None,
                title: str = "kubepreempt sweep") -> str:
    """The report as one HTML string (no external resources)."""
    spec = result.spec
    variants = [v.name for v in spec.variants]
    summaries = result.summaries()
    names = result.metric_names(patterns)
    pct = f"{result.confidence * 100:g}%"
    parts = [f"<h1>{html.escape(title)}</h1>",
             f"<p>{html.escape(spec.path)}: {len(variants)} variants x {len(spec.seeds)} "
             f"seeds of {html.escape(', '.join(spec.scenario))}; {len(result.failures)} "
             f"failed runs. Figures: mean and {pct} confidence interval (Student t) over "
             "seeds.</p>"]
    ranked = result.ranking(by)
    if ranked is not None and by is not None:
        best = "lowest" if by.order == "min" else "highest"
        parts.append(f"<h2>Ranking on {html.escape(by.metric)} ({best} first)</h2>")
        parts.append(_table(("rank", "variant", "mean", f"{pct} CI", "n", "overlaps best"), [
            (r.rank, r.variant, fmt(r.estimate.mean), interval(r.estimate), r.estimate.n,
             "yes" if r.overlaps_best else "no") for r in ranked]))
        order = [r.variant for r in ranked]
        parts.append(_figure(by.metric, [("", by.metric)], order, summaries))
    parts.append(f"<h2>Metrics (mean ± {pct} CI half-width)</h2>")
    parts.append(_table(("metric", *variants),
                        [(n, *(cell(summaries[v].get(n)) for v in variants)) for n in names]))
    for fam, series in families(names).items():
        for start in range(0, len(series), MAX_SERIES):
            parts.append(_figure(fam, series[start:start + MAX_SERIES], variants, summaries))
    if result.failures:
        parts.append("<h2>Failed runs</h2>")
        parts.append(_table(("variant", "seed", "error"), result.failures))
    style = ("body{font-family:sans-serif;max-width:1000px;margin:auto}"
             "table{border-collapse:collapse;margin:1em 0}"
             "td,th{border:1px solid #ccc;padding:2px 6px}"
             "svg{display:block;max-width:100%;height:auto;margin:1em 0}")
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
            f"</title><style>{style}</style></head><body>{''.join(parts)}</body></html>\n")


def write_report(result: SweepResult, path: str | Path, patterns: Sequence[str] = (),
                 by: RankBy | None = None) -> None:
    """Write the HTML report to ``path``."""
    Path(path).write_text(render_html(result, patterns, by), encoding="utf-8")
