/**
 * How the timeline draws what an overlap policy did to an occurrence, distinct from a plain skip: a
 * `buffered` occurrence (a hollow teal square where it arrived: it waits on the lease item and runs
 * later under a lane of its own), a holder displaced by `replace` (`stale/replaced`: a double bar
 * where its record was written), and an occurrence waiting for its predecessor under `after-previous`
 * (`skipped/waiting-for-previous` or `waiting-too-long`: an hourglass).
 */
import type { Lane } from './timeline-model.js';

/** The overlap kinds the timeline draws. */
export type OverlapDrawn = 'buffered' | 'replaced' | 'waiting';

/** Legend entries of {@link OverlapDrawn}, in legend order. */
export const OVERLAP_LEGEND: readonly [OverlapDrawn, string][] = [
  [
    'buffered',
    '<span style="color:#00838f">□ buffered (waits on the lease item, runs when the holder releases)</span>',
  ],
  ['replaced', '<span style="color:#ef6c00">‖ displaced by a newer occurrence (stale / replaced)</span>'],
  ['waiting', '<span style="color:#6d4c41">⧗ waiting for the previous occurrence (after-previous)</span>'],
];

/** Outcome colours of the overlap outcomes. */
export const OVERLAP_COLORS: Readonly<Record<string, string>> = { buffered: '#00838f' };

/** Which overlap kind a lane's outcome is, if any. */
export function overlapKindOf(l: Pick<Lane, 'outcome'>): OverlapDrawn | undefined {
  if (l.outcome === 'buffered') return 'buffered';
  if (l.outcome === 'stale/replaced') return 'replaced';
  if (l.outcome === 'skipped/waiting-for-previous' || l.outcome === 'skipped/waiting-too-long')
    return 'waiting';
  return undefined;
}

/**
 * The SVG of a lane's overlap mark at true time `atMs` (x = pixel of it), or undefined for a lane no
 * policy touched.
 */
export function overlapMark(
  l: Pick<Lane, 'outcome' | 'runId'>,
  cx: number,
  y: number,
  laneHeight: number,
  title: string,
): { readonly kind: OverlapDrawn; readonly svg: string } | undefined {
  const kind = overlapKindOf(l);
  if (!kind) return undefined;
  const cy = y + laneHeight / 2;
  const t = `<title>${title}</title>`;
  if (kind === 'buffered')
    return {
      kind,
      svg: `<rect x="${cx - 5}" y="${cy - 5}" width="10" height="10" class="overlap buffered" fill="none" stroke="#00838f" stroke-width="2">${t}</rect>`,
    };
  if (kind === 'replaced')
    return {
      kind,
      svg: `<path d="M${cx - 2} ${y + 2}V${y + laneHeight - 2}M${cx + 2} ${y + 2}V${y + laneHeight - 2}" class="overlap replaced" stroke="#ef6c00" stroke-width="2">${t}</path>`,
    };
  return {
    kind,
    svg: `<path d="M${cx - 5} ${cy - 6}H${cx + 5}L${cx - 5} ${cy + 6}H${cx + 5}Z" class="overlap waiting" fill="none" stroke="#6d4c41" stroke-width="1.5">${t}</path>`,
  };
}
