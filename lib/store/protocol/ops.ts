/**
 * The names of the protocol's steps (docs/design.md "One invocation", steps 1–6) and the tag every
 * request of the protocol carries, so logs, fault rules and timelines name steps (`claim`, `renew`,
 * ...) from the declaration that built the request, never by reading its expression strings.
 */

/** A protocol step, or `read` / `other`. `as const` object with a derived union. */
export const ProtocolOp = {
  Claim: 'claim',
  Renew: 'renew',
  Release: 'release',
  RunRecord: 'run-record',
  MarkAbandoned: 'mark-abandoned',
  FencedWrite: 'fenced-write',
  InsertOnce: 'insert-once',
  Effect: 'effect',
  Read: 'read',
  Other: 'other',
} as const;
/** Union of {@link ProtocolOp} values. */
export type ProtocolOp = (typeof ProtocolOp)[keyof typeof ProtocolOp];

/** Every protocol step a fault can be injected at, in protocol order. */
export const PROTOCOL_STEPS: readonly ProtocolOp[] = [
  ProtocolOp.Claim,
  ProtocolOp.Renew,
  ProtocolOp.FencedWrite,
  ProtocolOp.InsertOnce,
  ProtocolOp.RunRecord,
  ProtocolOp.Release,
];

/** What a request of the protocol is, as declared (lib/store/protocol/operations.ts). */
export interface RequestTag {
  /** The protocol step. */
  readonly op: ProtocolOp;
  /** The declared operation, e.g. `claim`, `effect-insert`, `effect-finish`. */
  readonly name: string;
  /** Table of the item the request writes (for a transaction: its last write). */
  readonly table: string;
  /** Full primary key of that item, plain values. */
  readonly key: Readonly<Record<string, unknown>>;
  /** Run id the request writes under (claims: the claimer; abandon marks: the displaced holder). */
  readonly runId?: string;
  /** Fence the request writes under, when it has one (a claim learns its fence from the write). */
  readonly fence?: number;
}

/**
 * The step of an untagged request (reads by the CLI and the sweeper, the examples' own writes):
 * `read` for Get/Query/Scan/BatchGet, else `other`.
 */
export function untaggedOp(command: string): ProtocolOp {
  return /^(GetItem|Query|Scan|BatchGetItem)Command$/.test(command) ? ProtocolOp.Read : ProtocolOp.Other;
}
