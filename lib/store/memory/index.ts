/**
 * The in-memory store: a DynamoDB stand-in whose lease, run and result stores pass the same
 * contract suite as the DynamoDB stores. Used by the history explorer (lib/drills/explorer).
 */
export {
  type Item,
  isRetryable,
  keyString,
  MemoryClient,
  type MemoryClientOptions,
  MemoryConditionFailed,
  MemoryDb,
  unusedDocumentClient,
  type WriteLogEntry,
} from './memory-db.js';
export { MemoryEffectStore } from './memory-effect-store.js';
export { MemoryLeaseStore } from './memory-lease-store.js';
export { MemoryResultStore } from './memory-result-store.js';
export { MemoryRunStore } from './memory-run-store.js';
