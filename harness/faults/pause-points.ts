/**
 * Pause points (RuntimeDeps.pausePoint) as rules, and kill: the process-level half of fault
 * injection. A pause rule holds a run at `after-claim`, `before-write` or `before-finish` until its
 * action resolves (a sleep, a gate, forever). {@link killSwitch} stops a worker for good: its pause
 * points never return, its requests never leave (FaultInjector.kill), its timers never fire.
 */
import type { PausePoint, PausePointName } from '../../lib/runtime/deps.js';
import type { FaultInjector } from './sdk-faults.js';

/** What a pause point is told. */
export type PauseInfo = Parameters<PausePoint>[1] & { readonly at: PausePointName };

/** A pause rule. */
export interface PauseRule {
  readonly name: string;
  readonly at: PausePointName;
  /** Only for matching runs/keys. @default every run */
  readonly when?: (info: PauseInfo) => boolean;
  /** Fire this many times, then retire. @default 1 */
  readonly times?: number;
  /** What the paused run waits for. */
  readonly action: (info: PauseInfo) => Promise<void>;
}

/** A promise that never settles: a killed process never goes on. */
export function forever(): Promise<never> {
  return new Promise<never>(() => undefined);
}

/** A promise with its resolver (an operator-controlled gate). */
export function gate(): { readonly promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => {
    open = r;
  });
  return { promise, open };
}

/** Pause rules composed into one pause hook. */
export class PausePlan {
  private rules: { rule: PauseRule; left: number }[] = [];
  private dead = false;
  /** Every rule firing, in order. */
  readonly hits: { rule: string; at: PausePointName; runId: string; fence: number }[] = [];

  /** Add a rule; returns a function that removes it. */
  add(rule: PauseRule): () => void {
    const entry = { rule, left: rule.times ?? 1 };
    this.rules.push(entry);
    return () => {
      this.rules = this.rules.filter((e) => e !== entry);
    };
  }

  /** From now on every pause point of this worker blocks forever. */
  kill(): void {
    this.dead = true;
  }

  /** The hook to pass as `RuntimeDeps.pausePoint`. */
  readonly pausePoint: PausePoint = async (at, info) => {
    if (this.dead) return forever();
    const full: PauseInfo = { ...info, at };
    const entry = this.rules.find((e) => e.left > 0 && e.rule.at === at && (e.rule.when?.(full) ?? true));
    if (!entry) return;
    entry.left--;
    this.hits.push({ rule: entry.rule.name, at, runId: info.runId, fence: info.fence });
    await entry.rule.action(full);
    if (this.dead) return forever();
  };
}

/** Kill a worker: its requests, pause points and (virtual) timers all stop. */
export function killSwitch(parts: {
  faults: FaultInjector;
  pauses: PausePlan;
  /** Drop the worker's timers (virtual time). */
  stopTimers?: () => void;
}): () => void {
  return () => {
    parts.faults.kill();
    parts.pauses.kill();
    parts.stopTimers?.();
  };
}
