/**
 * Which protocol step (docs/design.md steps 1–6) a store request belongs to: the step its declaration
 * tagged it with (lib/store/protocol), so fault rules and traces name steps (`claim`, `renew`, ...)
 * rather than SDK commands. Untagged requests are `read` or `other`.
 */
import { type ProtocolOp, type RequestTag, untaggedOp } from '../../lib/store/protocol/ops.js';

export { PROTOCOL_STEPS, ProtocolOp, type RequestTag } from '../../lib/store/protocol/ops.js';

/** A request as the fault layer sees it: command name, and the declared tag if the protocol sent it. */
export interface TaggedRequest {
  readonly command: string;
  readonly op?: ProtocolOp;
  readonly tag?: RequestTag;
}

/** The protocol step of a request: its declared op, else `read` / `other` by command name. */
export function protocolOpOf(req: TaggedRequest): ProtocolOp {
  return req.op ?? req.tag?.op ?? untaggedOp(req.command);
}
