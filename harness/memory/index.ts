/**
 * The in-memory store: a DynamoDB stand-in whose lease, run and result stores pass the same
 * contract suite as the DynamoDB stores. Used by the history explorer (harness/drills/explorer).
 */

export { MemoryBackend, memoryStores } from './memory-backend.js';
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
