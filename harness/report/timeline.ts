/**
 * The timeline report: ONE self-contained HTML file (inline CSS and SVG, no script, no network) for
 * a drill or a history — lease holders over time per job (one lane per run, its fence and outcome),
 * renewals, refused stale writes, effect transitions and injected faults, then every decision in order.
 */

import type { Recording } from './recording.js';
import { type Lane, type TimelineModel, timelineModel } from './timeline-model.js';

const esc = (s: unknown) =>
  String(s).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

const LEFT = 230;
const WIDTH = 900;
const LANE = 24;
const COLORS: Record<string, string> = {
  succeeded: '#2e7d32',
  failed: '#c62828',
  stale: '#ef6c00',
  skipped: '#9e9e9e',
  abandoned: '#6a1b9a',
  running: '#546e7a',
};

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

function ticks(m: TimelineModel): string {
  const span = m.endMs - m.startMs;
  const steps = [1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 1800, 3600].map((s) => s * 1000);
  const step = steps.find((s) => span / s <= 10) ?? 3_600_000;
  const out: string[] = [];
  for (let t = 0; t <= span; t += step) {
    const x = LEFT + (t / span) * WIDTH;
    out.push(
      `<line x1="${x}" x2="${x}" y1="0" y2="100%" class="grid"/><text x="${x + 2}" y="12" class="tick">+${seconds(t)}</text>`,
    );
  }
  return out.join('');
}

function lane(m: TimelineModel, l: Lane, y: number): string {
  const x = (t: number) => LEFT + ((t - m.startMs) / (m.endMs - m.startMs)) * WIDTH;
  const kind = l.outcome.split('/')[0] ?? 'running';
  const color = COLORS[kind] ?? COLORS.running;
  const label = `${esc(l.worker)} · ${esc(l.runId.slice(-6))}${l.fence !== undefined && l.holder ? ` · fence ${l.fence}` : ''}`;
  const parts = [
    `<g class="lane" data-job="${esc(l.job)}" data-run="${esc(l.runId)}" data-outcome="${esc(l.outcome)}" data-holder="${l.holder}"${l.fence !== undefined ? ` data-fence="${l.fence}"` : ''}>`,
    `<text x="4" y="${y + 15}" class="label">${label}</text>`,
  ];
  const outcomeText = l.holder && l.endMs === undefined ? 'killed (no own record)' : l.outcome;
  if (l.holder) {
    const end = l.endMs ?? m.endMs;
    const killed = l.endMs === undefined;
    const until = Math.min(end, Math.max(l.startMs, l.leaseUntilMs ?? end));
    parts.push(
      `<rect x="${x(l.startMs)}" y="${y + 4}" width="${Math.max(3, x(until) - x(l.startMs))}" height="${LANE - 8}" fill="${killed ? 'url(#killed)' : color}" class="holder"><title>${esc(`${l.runId} held the lease (fence ${l.fence}) from +${seconds(l.startMs - m.startMs)}; ${killed ? 'never recorded an outcome (killed)' : l.outcome}`)}</title></rect>`,
    );
    if (end > until)
      parts.push(
        `<rect x="${x(until)}" y="${y + 7}" width="${x(end) - x(until)}" height="${LANE - 14}" fill="${killed ? 'url(#killed)' : color}" opacity="0.35" class="past-lease"><title>${esc(`still running past its lease (ended +${seconds(until - m.startMs)} by its clock)`)}</title></rect>`,
      );
  } else {
    parts.push(
      `<circle cx="${x(l.startMs)}" cy="${y + LANE / 2}" r="4" fill="${color}" class="skip"><title>${esc(`${l.runId}: ${l.outcome}`)}</title></circle>`,
    );
  }
  parts.push(
    `<text x="${LEFT + WIDTH + 8}" y="${y + 15}" class="outcome" fill="${color}">${esc(outcomeText)}</text>`,
  );
  for (const mk of l.marks) {
    const cx = x(mk.atMs);
    const cy = y + LANE / 2;
    const title = `<title>${esc(`+${seconds(mk.atMs - m.startMs)} ${mk.label}`)}</title>`;
    if (mk.kind === 'renew-ok' || mk.kind === 'renew-failed')
      parts.push(
        `<line x1="${cx}" x2="${cx}" y1="${y + 2}" y2="${y + LANE - 2}" class="mark ${mk.kind}">${title}</line>`,
      );
    else if (mk.kind === 'stale-write-rejected')
      parts.push(
        `<path d="M${cx - 5} ${cy - 5}L${cx + 5} ${cy + 5}M${cx + 5} ${cy - 5}L${cx - 5} ${cy + 5}" class="mark stale">${title}</path>`,
      );
    else if (mk.kind === 'effect')
      parts.push(
        `<path d="M${cx} ${cy - 6}L${cx + 5} ${cy}L${cx} ${cy + 6}L${cx - 5} ${cy}Z" class="mark effect">${title}</path>`,
      );
    else if (mk.kind === 'fault')
      parts.push(
        `<path d="M${cx} ${cy - 7}L${cx + 6} ${cy + 5}L${cx - 6} ${cy + 5}Z" class="mark fault">${title}</path>`,
      );
    else parts.push(`<circle cx="${cx}" cy="${cy}" r="2.5" class="mark write">${title}</circle>`);
  }
  parts.push('</g>');
  return parts.join('');
}

/** Render a recording as one self-contained HTML page. */
export function renderTimeline(recording: Recording): string {
  const m = timelineModel(recording);
  let y = 24;
  const body: string[] = [];
  for (const job of m.jobs) {
    body.push(`<text x="4" y="${y + 14}" class="job">lease ${esc(job)}</text>`);
    y += LANE;
    for (const l of m.lanes.filter((x) => x.job === job)) {
      body.push(lane(m, l, y));
      y += LANE;
    }
    y += 8;
  }
  const meta = Object.entries(m.meta)
    .map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`)
    .join('');
  const rows = m.events
    .map(
      (e) =>
        `<tr class="${e.kind}"><td>+${esc(seconds(e.atMs - m.startMs))}</td><td>${esc(e.worker)}</td><td>${esc(e.runId?.slice(-6) ?? '')}</td><td>${esc(e.text)}</td></tr>`,
    )
    .join('');
  const holders = m.lanes.filter((l) => l.holder).length;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(m.title)}</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<style>
body{font:13px/1.4 system-ui,sans-serif;margin:16px;color:#212121}
h1{font-size:18px;margin:0 0 8px}dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:0 0 12px}
dt{font-weight:600}dd{margin:0}svg{border:1px solid #ddd;background:#fff}
.grid{stroke:#eee}.tick{font-size:10px;fill:#757575}.label{font-size:11px;font-family:monospace}
.job{font-weight:700;font-size:12px}.outcome{font-size:11px}
.renew-ok{stroke:#1b5e20;stroke-width:2}.renew-failed{stroke:#b71c1c;stroke-width:2}
.stale{stroke:#b71c1c;stroke-width:2.5;fill:none}.effect{fill:#1565c0}.fault{fill:#ff8f00}.write{fill:#212121}
table{border-collapse:collapse;margin-top:12px}td{padding:2px 8px;border-bottom:1px solid #eee;vertical-align:top}
tr.fault td,tr.process td{color:#e65100}tr.stale td{color:#b71c1c;font-weight:600}tr.effect td{color:#0d47a1}
.legend span{margin-right:14px}
</style></head><body>
<h1>${esc(m.title)}</h1>
<dl>${meta}<dt>span</dt><dd>${esc(seconds(m.endMs - m.startMs))} of true time, ${m.lanes.length} runs (${holders} held the lease), ${m.events.length} events</dd></dl>
<p class="legend"><span style="color:#2e7d32">■ held the lease (bar, fence in label; faded: running past its lease)</span><span>│ renewal (green ok, red failed)</span><span style="color:#b71c1c">✕ stale write refused</span><span style="color:#1565c0">◆ effect transition</span><span style="color:#ff8f00">▲ injected fault</span><span>• business write</span><span style="color:#9e9e9e">● claim refused</span></p>
<svg xmlns="http://www.w3.org/2000/svg" width="${LEFT + WIDTH + 190}" height="${y}" role="img" aria-label="lease holders over time">
<defs><pattern id="killed" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#cfd8dc"/><line x1="0" y1="0" x2="0" y2="6" stroke="#546e7a" stroke-width="3"/></pattern></defs>
${ticks(m)}${body.join('\n')}
</svg>
<table id="events"><thead><tr><th>when</th><th>worker</th><th>run</th><th>what</th></tr></thead><tbody>${rows}</tbody></table>
</body></html>
`;
}
