"""A report as one self-contained HTML page (inline SVG plots, inline CSS, no scripts, so it
opens offline) and as a JSON document with every figure. Pure: takes the report's API
representation, returns text."""

from __future__ import annotations

import json
from html import escape
from typing import Any

STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:32px;color:#222;max-width:1100px}
table{border-collapse:collapse;margin:8px 0 20px}th,td{padding:4px 10px;text-align:left;
border-bottom:1px solid #ddd}th{font-size:12px;text-transform:uppercase;color:#666}
.improved{color:#1e6b34}.regressed{color:#a1281c}.subtle{color:#777}
figure{display:inline-block;margin:0 16px 8px 0}figcaption{text-align:center;font-size:12px}
"""


DASHED = 'stroke-dasharray="4 3"'


def report_json(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False)


def report_html(report: dict[str, Any]) -> str:
    figures = report["figures"]
    title = f"{report['lineage']} · v{report['version']}"
    parts = [
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{escape(title)}"
        f"</title><style>{STYLE}</style></head><body>",
        f"<h1>{escape(title)}</h1><p><strong>{escape(report['headline'])}</strong></p>",
        f"<p class='subtle'>State: {escape(report['state'])}. {_settings(figures['settings'])}</p>",
        "<h2>Families</h2>",
        _family_table(figures["families"]),
        "<h2>Success by difficulty</h2>",
        _level_charts(figures["candidate_profile"], figures["baseline_profile"]),
        "<h2>pass@1 against pass@k</h2>",
        _pass_at_k(figures["candidate_profile"], figures["baseline_profile"]),
        "<h2>Error types by layer</h2>",
        _errors_by_layer(figures["candidate_profile"], "Candidate"),
        _errors_by_layer(figures["baseline_profile"], "Baseline"),
        "<h2>Long tail</h2>",
        _worst_tasks(figures["candidate_profile"]),
        _stability(figures["candidate_profile"], figures["baseline_profile"]),
        "<h2>Reward-hacking and drift signals</h2>",
        _signals(figures.get("signals")),
        "<h2>Review</h2>",
        _review(report),
        "</body></html>",
    ]
    return "\n".join(parts)


def _settings(settings: dict[str, Any]) -> str:
    return (
        f"k = {settings['k']}, temperature {settings['temperature']}; "
        f"{settings['bootstrap_resamples']} paired bootstrap resamples over tasks, "
        f"{settings['confidence']:.0%} intervals (seed {settings['seed']})."
    )


def _pts(x: float) -> str:
    return f"{x * 100:+.1f}".replace("-", "−")


def _family_table(rows: list[dict[str, Any]]) -> str:
    scale = min(1.0, max([0.05] + [max(abs(r["low"]), abs(r["high"])) for r in rows]))
    body = "".join(
        f"<tr><td>{escape(r['family'])}</td><td>{r['tasks']}</td><td>{r['baseline']:.1%}</td>"
        f"<td>{r['candidate']:.1%}</td><td>{_pts(r['difference'])} "
        f"<span class='subtle'>[{_pts(r['low'])}, {_pts(r['high'])}]</span></td>"
        f"<td>{_ci_bar(r, scale)}</td><td class='{r['verdict']}'>{r['verdict']}</td></tr>"
        for r in rows
    )
    head = (
        "<tr><th>Family</th><th>Tasks</th><th>Baseline</th><th>Candidate</th>"
        f"<th>Difference (pts)</th><th>95% CI (±{scale * 100:.0f} pts)</th><th>Verdict</th></tr>"
    )
    return f"<table>{head}{body}</table>"


def _ci_bar(row: dict[str, Any], scale: float, width: int = 160) -> str:
    def x(v: float) -> float:
        return (v / scale + 1) / 2 * width

    colour = {"improved": "#1e8e3e", "regressed": "#c0392b"}.get(row["verdict"], "#888")
    low, high = x(row["low"]), x(row["high"])
    return (
        f"<svg width='{width}' height='18' xmlns='http://www.w3.org/2000/svg'>"
        f"<line x1='{x(0):.1f}' x2='{x(0):.1f}' y1='0' y2='18' stroke='#888'/>"
        f"<rect x='{low:.1f}' y='6' width='{max(2.0, high - low):.1f}' height='6' "
        f"fill='{colour}' opacity='0.5'/>"
        f"<circle cx='{x(row['difference']):.1f}' cy='9' r='3.5' fill='{colour}'/></svg>"
    )


def _level_charts(candidate: dict[str, Any], baseline: dict[str, Any]) -> str:
    return "".join(
        _level_chart(family, levels, baseline["by_difficulty"].get(family, []))
        for family, levels in candidate["by_difficulty"].items()
    )


def _level_chart(family: str, cand: list[dict[str, Any]], base: list[dict[str, Any]]) -> str:
    width, height, pad = 240, 130, 26
    levels = sorted({p["difficulty"] for p in cand + base})

    def x(d: int) -> float:
        share = levels.index(d) / (len(levels) - 1) if len(levels) > 1 else 0.5
        return pad + share * (width - 2 * pad)

    def y(s: float) -> float:
        return height - pad - s * (height - 2 * pad)

    def path(points: list[dict[str, Any]], colour: str, dash: str) -> str:
        d = " ".join(
            f"{'L' if i else 'M'}{x(p['difficulty']):.1f},{y(p['success']):.1f}"
            for i, p in enumerate(points)
        )
        return f"<path d='{d}' fill='none' stroke='{colour}' stroke-width='2' {dash}/>"

    ticks = "".join(
        f"<text x='{x(d):.1f}' y='{height - 8}' font-size='10' text-anchor='middle'>d{d}</text>"
        for d in levels
    )
    return (
        f"<figure><svg width='{width}' height='{height}' xmlns='http://www.w3.org/2000/svg'>"
        f"<line x1='{pad}' x2='{width - pad}' y1='{y(0):.1f}' y2='{y(0):.1f}' stroke='#ccc'/>"
        f"<text x='0' y='{y(1) + 4:.1f}' font-size='10'>100%</text>"
        f"<text x='0' y='{y(0) + 4:.1f}' font-size='10'>0%</text>{ticks}"
        f"{path(base, '#9aa0a6', DASHED)}{path(cand, '#1a73e8', '')}"
        f"</svg><figcaption>{escape(family)} (blue: candidate, grey: baseline)</figcaption>"
        "</figure>"
    )


def _pass_at_k(candidate: dict[str, Any], baseline: dict[str, Any]) -> str:
    rows = []
    for family, c in candidate["pass_at_k"].items():
        b = baseline["pass_at_k"].get(family, {})
        rows.append(
            f"<tr><td>{escape(family)}</td><td>{c['k']}</td>"
            f"<td>{b.get('pass_at_1', float('nan')):.0%}</td>"
            f"<td>{b.get('pass_at_k', float('nan')):.0%}</td>"
            f"<td>{c['pass_at_1']:.0%}</td><td>{c['pass_at_k']:.0%}</td></tr>"
        )
    head = (
        "<tr><th>Family</th><th>k</th><th>Baseline pass@1</th><th>Baseline pass@k</th>"
        "<th>Candidate pass@1</th><th>Candidate pass@k</th></tr>"
    )
    return f"<table>{head}{''.join(rows)}</table>"


def _errors_by_layer(profile: dict[str, Any], side: str) -> str:
    """Failed samples by family, verifier layer and error type (the first layer that failed)."""
    rows = "".join(
        f"<tr><td>{escape(family)}</td><td>{escape(stage)}</td><td>{escape(error)}</td>"
        f"<td>{count}</td></tr>"
        for family, stages in profile.get("errors_by_layer", {}).items()
        for stage, errors in stages.items()
        for error, count in errors.items()
    )
    if not rows:
        return f"<p class='subtle'>{side}: no failed samples.</p>"
    head = "<tr><th>Family</th><th>Layer</th><th>Error</th><th>Failed samples</th></tr>"
    return f"<h3>{side}: failed samples by verifier layer</h3><table>{head}{rows}</table>"


def _worst_tasks(profile: dict[str, Any]) -> str:
    """The candidate's worst held-out tasks, with how often they passed and how they failed."""
    tasks = profile.get("worst_tasks", [])
    if not tasks:
        return "<p class='subtle'>No task was evaluated.</p>"
    rows = "".join(
        f"<tr><td><code>{escape(t['task_hash'][:12])}</code></td><td>{escape(t['family'])}</td>"
        f"<td>{t['difficulty']}</td><td>{t['passes']}/{t['k']}</td>"
        f"<td>{escape(', '.join(f'{e} ×{n}' for e, n in t.get('errors', {}).items()))}</td></tr>"
        for t in tasks
    )
    head = "<tr><th>Task</th><th>Family</th><th>Difficulty</th><th>Passed</th><th>Errors</th></tr>"
    return f"<h3>Candidate's worst tasks</h3><table>{head}{rows}</table>"


def _stability(candidate: dict[str, Any], baseline: dict[str, Any]) -> str:
    """Families played as environments: success against the turns used, success within t
    turns (the turn budget), pass^j of repeated episodes, and a table of each side's figures;
    nothing when no family was (single-turn reports, and reports made before)."""
    cand, base = candidate.get("stability") or {}, baseline.get("stability") or {}
    families = sorted({*cand, *base})
    if not families:
        return ""
    charts = []
    for family in families:
        c, b = cand.get(family, {}), base.get(family, {})
        charts += [
            _xy_chart(
                f"{family}: success by turns used", "t",
                *[[(p["turns"], p["success"]) for p in s.get("by_turns_used", [])] for s in (c, b)],
            ),
            _xy_chart(
                f"{family}: success within t turns", "t",
                *[[(p["turns"], p["success"]) for p in s.get("within_turns", [])] for s in (c, b)],
            ),
            _xy_chart(
                f"{family}: pass^k of repeated episodes", "k",
                *[
                    [(p["k"], p["value"]) for p in s.get("consistency", {}).get("pass_hat_k", [])]
                    for s in (c, b)
                ],
            ),
        ]  # fmt: skip
    rows = "".join(
        _stability_row(family, side, figures)
        for family in families
        for side, figures in (("baseline", base.get(family)), ("candidate", cand.get(family)))
        if figures
    )
    head = (
        "<tr><th>Family</th><th>Side</th><th>Episodes</th><th>Success</th><th>Turns used</th>"
        "<th>Turn budget</th><th>Agreement</th><th>All agree</th><th>Tool errors / episode</th>"
        "<th>Tokens / episode</th></tr>"
    )
    return (
        "<h2>Stability over turns</h2>"
        f"<div>{''.join(charts)}</div><table>{head}{rows}</table>"
        "<p class='subtle'>Agreement: the share of pairs of a task's repeated episodes with the "
        "same outcome. pass^k: the chance that k episodes of a task all pass.</p>"
    )


def _stability_row(family: str, side: str, s: dict[str, Any]) -> str:
    agreement = s["consistency"].get("agreement")
    budgets = ", ".join(f"{b['budget']}: {b['success']:.0%}" for b in s.get("by_budget", []))
    return (
        f"<tr><td>{escape(family)}</td><td>{side}</td><td>{s['episodes']}</td>"
        f"<td>{s['success']:.0%}</td><td>{s['mean_turns']:.2f}</td>"
        f"<td>{s['mean_budget']:.2f} <span class='subtle'>({escape(budgets)})</span></td>"
        f"<td>{'–' if agreement is None else f'{agreement:.0%}'}</td>"
        f"<td>{s['consistency']['all_agree']:.0%}</td>"
        f"<td>{s['tool_errors_per_episode']:.2f}</td><td>{s['tokens_per_episode']:.1f}</td></tr>"
    )


def _xy_chart(
    caption: str,
    prefix: str,
    cand: list[tuple[int, float]],
    base: list[tuple[int, float]],
) -> str:
    """A small chart of success-like values (0 to 1) against whole numbers, as the
    difficulty charts draw them: candidate in blue, baseline in dashed grey."""
    width, height, pad = 240, 130, 26
    xs = sorted({x for x, _ in cand + base})

    def x(v: int) -> float:
        share = xs.index(v) / (len(xs) - 1) if len(xs) > 1 else 0.5
        return pad + share * (width - 2 * pad)

    def y(s: float) -> float:
        return height - pad - s * (height - 2 * pad)

    def path(points: list[tuple[int, float]], colour: str, dash: str) -> str:
        if not points:
            return ""
        d = " ".join(f"{'L' if i else 'M'}{x(a):.1f},{y(b):.1f}" for i, (a, b) in enumerate(points))
        dots = "".join(
            f"<circle cx='{x(a):.1f}' cy='{y(b):.1f}' r='2.5' fill='{colour}'/>" for a, b in points
        )
        return f"<path d='{d}' fill='none' stroke='{colour}' stroke-width='2' {dash}/>{dots}"

    ticks = "".join(
        f"<text x='{x(v):.1f}' y='{height - 8}' font-size='10' text-anchor='middle'>"
        f"{prefix}{v}</text>"
        for v in xs
    )
    return (
        f"<figure><svg width='{width}' height='{height}' xmlns='http://www.w3.org/2000/svg' "
        f"role='img' aria-label='{escape(caption)}'>"
        f"<line x1='{pad}' x2='{width - pad}' y1='{y(0):.1f}' y2='{y(0):.1f}' stroke='#ccc'/>"
        f"<text x='0' y='{y(1) + 4:.1f}' font-size='10'>100%</text>"
        f"<text x='0' y='{y(0) + 4:.1f}' font-size='10'>0%</text>{ticks}"
        f"{path(base, '#9aa0a6', DASHED)}{path(cand, '#1a73e8', '')}"
        f"</svg><figcaption>{escape(caption)} (blue: candidate, grey: baseline)</figcaption>"
        "</figure>"
    )


def _signals(found: dict[str, Any] | None) -> str:
    if not found:
        return "<p class='subtle'>None: the candidate is a base model, not a training run's checkpoint.</p>"
    if found["step"] is None:
        return f"<p class='subtle'>Run {found['run']} was never checked.</p>"
    colour = {"breached": "regressed", "warning": "regressed"}
    rows = "".join(
        f"<tr><td>{escape(s['label'])}</td><td class='{colour.get(s['state'], '')}'>"
        f"{escape(s['state'])}</td><td>{escape(s['sentence'])}</td>"
        f"<td>{'' if s['since_step'] is None else s['since_step']}</td></tr>"
        for s in found["signals"]
    )
    head = "<tr><th>Signal</th><th>State</th><th>What it sees</th><th>Since step</th></tr>"
    lead = f"<p class='subtle'>Run {found['run']}, checked at step {found['step']}.</p>"
    return f"{lead}<table>{head}{rows}</table>"


def _review(report: dict[str, Any]) -> str:
    regressed = ", ".join(report.get("regressed_families", []))
    # A comment names its plot by key; the reader knows the plot by its title.
    titles = {c["key"]: c["title"] for c in report.get("charts", [])}
    reviews = "".join(
        f"<li>{escape(r['reviewer'] or '')}: {escape(r['decision'])}"
        f"{' — ' + escape(r['note']) if r['note'] else ''}{_override(r, regressed)}</li>"
        for r in report.get("reviews", [])
    )
    comments = "".join(
        f"<li>{escape(c['author'] or '')}"
        f"{' on ' + escape(c['family']) if c['family'] else ''}"
        f"{' on the plot ' + escape(titles.get(c['chart'], c['chart'])) if c.get('chart') else ''}"
        f": {escape(c['body'])}</li>"
        for c in report.get("comments", [])
    )
    return f"<ul>{reviews or '<li>no reviews</li>'}</ul><h3>Comments</h3><ul>{comments}</ul>"


def _override(review: dict[str, Any], regressed: str) -> str:
    reason = review.get("override_reason")
    if not reason:
        return ""
    return (
        f"<p class='regressed'><strong>Overrode the regression of {escape(regressed)}:</strong> "
        f"{escape(reason)}</p>"
    )
