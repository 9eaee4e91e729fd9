/**
 * `cronfence/observability`: the runtime's logs and metrics with Powertools for AWS Lambda (Logger and
 * Metrics, optional peer dependencies): one structured log line per decision and the EMF metrics the
 * stack's alarms read. A job opts in with `defineJob({ ..., observe: createObserver })`; a job that
 * does not bundles without Powertools. Named re-exports only.
 */
export { METRIC_NAMESPACE, METRIC_SERVICE, RuntimeMetric } from '../core/metrics.js';
export type { Observer, RuntimeEvent } from '../runtime/events.js';
export {
  createObserver,
  type ObserverOptions,
  publishSweepMetrics,
  sweepMetrics,
} from '../runtime/observability.js';
