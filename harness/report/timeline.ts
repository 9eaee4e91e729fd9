/**
 * The timeline report: ONE self-contained HTML file (inline CSS and SVG, no script, no network) for
 * a drill or a history — lease holders over time per job (one lane per run, naming its slot, fence,
 * outcome and error), renewals, refused stale writes, effect transitions in the lane of the run that
 * made them, injected faults, pauses and their resumes, on a wall-clock axis (UTC, and the job's zone),
 * then every decision in order. The legend lists only what the picture draws.
 */

import { OVERLAP_COLORS, OVERLAP_LEGEND, type OverlapDrawn, overlapMark } from './overlap-marks.js';
import type { Recording } from './recording.js';
import { axisTicks, formatInstant, formatSpan, localInstant } from './time-axis.js';
import { type Lane, type LaneMark, type TimelineModel, timelineModel } from './timeline-model.js';

const esc = (s: unknown) =>
  String(s).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

const LEFT = 330;
const WIDTH = 860;
const RIGHT = 330;
const LANE = 24;
/** Room above the lanes for the axis labels (UTC, and the job's zone). */
const AXIS = 34;
/** Longest error text beside a lane (the whole text is in its tooltip and the event list). */
const ERROR_CHARS = 36;
const COLORS: Record<string, string> = {
  succeeded: '#2e7d32',
  failed: '#c62828',
  stale: '#ef6c00',
  skipped: '#9e9e9e',
  abandoned: '#6a1b9a',
  running: '#546e7a',
  ...OVERLAP_COLORS,
};

/** What the legend can name; each entry is shown only when the picture draws it. */
type Drawn = 'holder' | 'past-lease' | 'killed' | 'skip' | 'pause' | LaneMark['kind'] | OverlapDrawn;

const LEGEND: readonly [Drawn, string][] = [
  ['holder', '<span style="color:#2e7d32">■ held the lease (bar; colour = outcome)</span>'],
  ['past-lease', '<span style="color:#2e7d32;opacity:.5">■ running past its lease</span>'],
  ['killed', '<span style="color:#546e7a">▨ held, never recorded (killed)</span>'],
  ['skip', '<span style="color:#9e9e9e">● claim refused (skip)</span>'],
  ['renew-ok', '<span style="color:#1b5e20">│ renewal</span>'],
  ['renew-failed', '<span style="color:#b71c1c">│ renewal failed</span>'],
  ['stale-write-rejected', '<span style="color:#b71c1c">✕ stale write refused</span>'],
  ['effect', '<span style="color:#1565c0">◆ effect transition</span>'],
  ['fault', '<span style="color:#ff8f00">▲ injected fault</span>'],
  ['write', '<span>• business write</span>'],
  ['pause', '<span style="color:#8d6e63">▒ job paused (to its resume)</span>'],
  ...OVERLAP_LEGEND,
];

function ticks(m: TimelineModel, height: number): string {
  const x = (t: number) => LEFT + ((t - m.startMs) / (m.endMs - m.startMs)) * WIDTH;
  const zone = m.timeZone !== undefined && m.timeZone !== 'UTC' ? m.timeZone : undefined;
  const out = [
    `<text x="${LEFT - 6}" y="12" class="tick axis-name" text-anchor="end">UTC</text>`,
    ...(zone
      ? [`<text x="${LEFT - 6}" y="26" class="tick axis-name" text-anchor="end">${esc(zone)}</text>`]
      : []),
  ];
  for (const t of axisTicks(m.startMs, m.endMs, zone)) {
    out.push(
      `<line x1="${x(t.atMs)}" x2="${x(t.atMs)}" y1="${AXIS - 4}" y2="${height}" class="grid"/>`,
      `<text x="${x(t.atMs) + 2}" y="12" class="tick utc">${esc(t.utc)}</text>`,
      ...(t.local !== undefined
        ? [`<text x="${x(t.atMs) + 2}" y="26" class="tick local">${esc(t.local)}</text>`]
        : []),
    );
  }
  return out.join('');
}

function pauseBands(m: TimelineModel, height: number, drawn: Set<Drawn>): string {
  const x = (t: number) => LEFT + ((t - m.startMs) / (m.endMs - m.startMs)) * WIDTH;
  return m.pauses
    .map((p) => {
      drawn.add('pause');
      const end = p.endMs ?? m.endMs;
      const at = (t: number) => formatInstant(t, m.timeZone);
      const title = `paused ${at(p.startMs)} (${p.text})${p.endMs !== undefined ? `; resumed ${at(p.endMs)} (${p.endText ?? ''})` : '; still paused at the end of the range'}`;
      return [
        `<g class="pause" data-from="${new Date(p.startMs).toISOString()}"${p.endMs !== undefined ? ` data-to="${new Date(p.endMs).toISOString()}"` : ''}>`,
        `<rect x="${x(p.startMs)}" y="${AXIS - 4}" width="${Math.max(2, x(end) - x(p.startMs))}" height="${height - AXIS + 4}" class="pause-band"><title>${esc(title)}</title></rect>`,
        `<line x1="${x(p.startMs)}" x2="${x(p.startMs)}" y1="${AXIS - 4}" y2="${height}" class="pause-edge"/>`,
        `<text x="${x(p.startMs) + 3}" y="${height - 4}" class="pause-label">paused</text>`,
        ...(p.endMs !== undefined
          ? [
              `<line x1="${x(p.endMs)}" x2="${x(p.endMs)}" y1="${AXIS - 4}" y2="${height}" class="pause-edge"/>`,
              `<text x="${x(p.endMs) + 3}" y="${height - 4}" class="resume-label">resumed</text>`,
            ]
          : []),
        '</g>',
      ].join('');
    })
    .join('');
}

/** The lane's label: its slot, who delivered it, its run and (holders) its fence. */
export function laneLabel(l: Lane): string {
  return `${l.slot || '-'} · ${l.worker} · ${l.runId.slice(-6)}${l.fence !== undefined && l.holder ? ` · fence ${l.fence}` : ''}`;
}

function lane(m: TimelineModel, l: Lane, y: number, drawn: Set<Drawn>): string {
  const x = (t: number) => LEFT + ((t - m.startMs) / (m.endMs - m.startMs)) * WIDTH;
  const at = (t: number) => formatInstant(t, m.timeZone);
  const kind = l.outcome.split('/')[0] ?? 'running';
  const color = COLORS[kind] ?? COLORS.running;
  const parts = [
    `<g class="lane" data-job="${esc(l.job)}" data-slot="${esc(l.slot)}" data-run="${esc(l.runId)}" data-outcome="${esc(l.outcome)}" data-holder="${l.holder}"${l.fence !== undefined ? ` data-fence="${l.fence}"` : ''} data-start="${new Date(l.startMs).toISOString()}"${l.endMs !== undefined ? ` data-end="${new Date(l.endMs).toISOString()}"` : ''}>`,
    `<text x="4" y="${y + 15}" class="label">${esc(laneLabel(l))}</text>`,
  ];
  const outcomeText = l.holder && l.endMs === undefined ? 'killed (no own record)' : l.outcome;
  if (l.holder) {
    const end = l.endMs ?? m.endMs;
    const killed = l.endMs === undefined;
    drawn.add(killed ? 'killed' : 'holder');
    const until = Math.min(end, Math.max(l.startMs, l.leaseUntilMs ?? end));
    parts.push(
      `<rect x="${x(l.startMs)}" y="${y + 4}" width="${Math.max(5, x(until) - x(l.startMs))}" height="${LANE - 8}" fill="${killed ? 'url(#killed)' : color}" class="holder"><title>${esc(`${l.runId} held the lease (fence ${l.fence}) from ${at(l.startMs)}; ${killed ? 'never recorded an outcome (killed)' : `${l.outcome} at ${at(end)}`}${l.error ? ` — ${l.error}` : ''}`)}</title></rect>`,
    );
    if (end > until) {
      drawn.add('past-lease');
      parts.push(
        `<rect x="${x(until)}" y="${y + 7}" width="${x(end) - x(until)}" height="${LANE - 14}" fill="${killed ? 'url(#killed)' : color}" opacity="0.35" class="past-lease"><title>${esc(`still running past its lease (lease ended ${at(until)} by its clock)`)}</title></rect>`,
      );
    }
  }
  const mark = overlapMark(
    l,
    x(l.holder ? (l.endMs ?? m.endMs) : l.startMs),
    y,
    LANE,
    esc(`${l.runId}: ${l.outcome} at ${at(l.holder ? (l.endMs ?? m.endMs) : l.startMs)}`),
  );
  if (mark) {
    drawn.add(mark.kind);
    parts.push(mark.svg);
  } else if (!l.holder) {
    drawn.add('skip');
    parts.push(
      `<circle cx="${x(l.startMs)}" cy="${y + LANE / 2}" r="4" fill="${color}" class="skip"><title>${esc(`${l.runId}: ${l.outcome} at ${at(l.startMs)}`)}</title></circle>`,
    );
  }
  const error =
    l.error && l.error.length > ERROR_CHARS ? `${l.error.slice(0, ERROR_CHARS - 1).trimEnd()}…` : l.error;
  parts.push(
    `<g class="outcome-cell"><title>${esc(`${outcomeText}${l.error ? ` — ${l.error}` : ''}`)}</title><text x="${LEFT + WIDTH + 8}" y="${y + 15}" class="outcome" fill="${color}">${esc(outcomeText)}${error ? `<tspan class="error"> — ${esc(error)}</tspan>` : ''}</text></g>`,
  );
  for (const mk of l.marks) {
    drawn.add(mk.kind);
    const cx = x(mk.atMs);
    const cy = y + LANE / 2;
    const title = `<title>${esc(`${at(mk.atMs)} ${mk.label}`)}</title>`;
    const data = `data-at="${new Date(mk.atMs).toISOString()}" data-label="${esc(mk.label)}"`;
    if (mk.kind === 'renew-ok' || mk.kind === 'renew-failed')
      parts.push(
        `<line x1="${cx}" x2="${cx}" y1="${y + 2}" y2="${y + LANE - 2}" class="mark ${mk.kind}" ${data}>${title}</line>`,
      );
    else if (mk.kind === 'stale-write-rejected')
      parts.push(
        `<path d="M${cx - 5} ${cy - 5}L${cx + 5} ${cy + 5}M${cx + 5} ${cy - 5}L${cx - 5} ${cy + 5}" class="mark stale" ${data}>${title}</path>`,
      );
    else if (mk.kind === 'effect')
      parts.push(
        `<path d="M${cx} ${cy - 6}L${cx + 5} ${cy}L${cx} ${cy + 6}L${cx - 5} ${cy}Z" class="mark effect" ${data}>${title}</path>`,
      );
    else if (mk.kind === 'fault')
      parts.push(
        `<path d="M${cx} ${cy - 7}L${cx + 6} ${cy + 5}L${cx - 6} ${cy + 5}Z" class="mark fault" ${data}>${title}</path>`,
      );
    else parts.push(`<circle cx="${cx}" cy="${cy}" r="2.5" class="mark write" ${data}>${title}</circle>`);
  }
  parts.push('</g>');
  return parts.join('');
}

/** Render a recording as one self-contained HTML page. */
export function renderTimeline(recording: Recording): string {
  const m = timelineModel(recording);
  const drawn = new Set<Drawn>();
  let y = AXIS;
  const body: string[] = [];
  for (const job of m.jobs) {
    body.push(`<text x="4" y="${y + 14}" class="job">lease ${esc(job)}</text>`);
    y += LANE;
    for (const l of m.lanes.filter((x) => x.job === job)) {
      body.push(lane(m, l, y, drawn));
      y += LANE;
    }
    y += 8;
  }
  const height = y + 14;
  const bands = pauseBands(m, height, drawn);
  const meta = Object.entries(m.meta)
    .map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`)
    .join('');
  const zone = m.timeZone !== undefined && m.timeZone !== 'UTC' ? m.timeZone : undefined;
  const rows = m.events
    .map(
      (e) =>
        `<tr class="${e.kind}"><td>${esc(formatInstant(e.atMs))}</td>${zone ? `<td class="local">${esc(localInstant(e.atMs, zone))}</td>` : ''}<td>${esc(e.worker)}</td><td>${esc(e.runId?.slice(-6) ?? '')}</td><td>${esc(e.text)}</td></tr>`,
    )
    .join('');
  const holders = m.lanes.filter((l) => l.holder).length;
  const legend = LEGEND.filter(([k]) => drawn.has(k))
    .map(([k, html]) => html.replace('<span', `<span data-legend="${k}"`))
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(m.title)}</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<style>
body{font:13px/1.4 system-ui,sans-serif;margin:16px;color:#212121}
h1{font-size:18px;margin:0 0 8px}dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:0 0 12px}
dt{font-weight:600}dd{margin:0}svg{border:1px solid #ddd;background:#fff}
.grid{stroke:#eee}.tick{font-size:10px;fill:#616161}.tick.local{fill:#8d6e63}.axis-name{font-weight:600}
.label{font-size:11px;font-family:monospace}.job{font-weight:700;font-size:12px}.outcome{font-size:11px}
.error{fill:#b71c1c}
.renew-ok{stroke:#1b5e20;stroke-width:2}.renew-failed{stroke:#b71c1c;stroke-width:2}
.stale{stroke:#b71c1c;stroke-width:2.5;fill:none}.effect{fill:#1565c0}.fault{fill:#ff8f00}.write{fill:#212121}
.pause-band{fill:#8d6e63;opacity:.12}.pause-edge{stroke:#8d6e63;stroke-width:1.5;stroke-dasharray:4 3}
.pause-label,.resume-label{font-size:10px;fill:#5d4037;font-weight:600}
table{border-collapse:collapse;margin-top:12px}td{padding:2px 8px;border-bottom:1px solid #eee;vertical-align:top}
td:first-child{white-space:nowrap;font-family:monospace}td.local{white-space:nowrap;font-family:monospace;color:#6d4c41}
tr.fault td,tr.process td{color:#e65100}tr.stale td{color:#b71c1c;font-weight:600}tr.effect td{color:#0d47a1}
.legend span{margin-right:14px}
</style></head><body>
<h1>${esc(m.title)}</h1>
<dl>${meta}<dt>span</dt><dd>${esc(`${formatInstant(m.startMs)} → ${formatInstant(m.endMs)} (${formatSpan(m.endMs - m.startMs)})`)}, ${m.lanes.length} runs (${holders} held the lease), ${m.events.length} events</dd></dl>
<p class="legend">${legend}</p>
<svg xmlns="http://www.w3.org/2000/svg" width="${LEFT + WIDTH + RIGHT}" height="${height}" role="img" aria-label="lease holders over time">
<defs><pattern id="killed" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#cfd8dc"/><line x1="0" y1="0" x2="0" y2="6" stroke="#546e7a" stroke-width="3"/></pattern></defs>
${ticks(m, height)}${bands}${body.join('\n')}
</svg>
<table id="events"><thead><tr><th>when (UTC)</th>${zone ? `<th>${esc(zone)}</th>` : ''}<th>worker</th><th>run</th><th>what</th></tr></thead><tbody>${rows}</tbody></table>
</body></html>
`;
}
