/**
 * A controllable clock for drills and tests: an offset from the system clock (skew), and freezing
 * (a process paused by GC or a VM freeze sees no time pass until it wakes).
 */
import type { Clock } from '../../lib/core/ports.js';

/** A clock with skew and freeze controls. */
export class ControlledClock implements Clock {
  private frozenAtMs: number | undefined;

  /** @param offsetMs skew against the system clock (+ = fast). @default 0 */
  constructor(private offsetMs = 0) {}

  now(): number {
    return this.frozenAtMs ?? Date.now() + this.offsetMs;
  }

  /** Stop time at the current reading. */
  freeze(): void {
    this.frozenAtMs = this.now();
  }

  /** Let time run again from the system clock (+ offset); the frozen interval is lost, as after a pause. */
  unfreeze(): void {
    this.frozenAtMs = undefined;
  }

  /** Move the clock forward by `ms` (skew grows). */
  advance(ms: number): void {
    this.offsetMs += ms;
    if (this.frozenAtMs !== undefined) this.frozenAtMs += ms;
  }

  /** Make the clock read `ms` now and run on from there (an emulator moving to a slot's time). */
  setTo(ms: number): void {
    this.offsetMs = ms - Date.now();
    if (this.frozenAtMs !== undefined) this.frozenAtMs = ms;
  }

  /** Current skew against the system clock, ms. */
  get skewMs(): number {
    return this.offsetMs;
  }
}
