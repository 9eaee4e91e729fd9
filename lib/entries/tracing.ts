/**
 * `cronfence/tracing`: OpenTelemetry traces of a job's runs, opt-in. A job handler wrapped with
 * `withTracing` emits one attempt span per invocation attempt, in a trace derived from the occurrence
 * (job + slot), through `@opentelemetry/api` only; a job that does not import this entry bundles none
 * of it. docs/deploy.md "Traces" shows how to send the spans to an OpenTelemetry collector.
 */
export { Attr, EventName, SpanName } from '../runtime/tracing/attributes.js';
export {
  OccurrenceTracing,
  type OccurrenceTracingOptions,
  TRACER_NAME,
} from '../runtime/tracing/occurrence-tracing.js';
export { occurrenceIds, occurrenceSpanContext } from '../runtime/tracing/trace-ids.js';
export { tracedDeps } from '../runtime/tracing/traced-deps.js';
export {
  flushGlobalProvider,
  type WithTracingOptions,
  withTracing,
} from '../runtime/tracing/with-tracing.js';
