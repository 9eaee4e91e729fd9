/**
 * Placeholder: replaced by the timeline renderer.
 */
import type { Recording } from './recording.js';

/** Render a recording as one self-contained HTML page. */
export function renderTimeline(recording: Recording): string {
  return `<!doctype html><title>${recording.title}</title>`;
}
