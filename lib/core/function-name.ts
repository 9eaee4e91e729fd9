/**
 * A job's Lambda function name in a deployed stack, when its entry does not choose one: derived from
 * the CloudFormation stack name and the job name, so two stacks in one account and region (staging and
 * prod, two teams each with a `nightly`) never collide. The CDK names the function so and the CLI, told
 * the stack (`"stack"` in the project config), derives the same name.
 */

/** Lambda function names are at most 64 characters (Lambda API reference, `FunctionName`). */
export const MAX_FUNCTION_NAME_LENGTH = 64;

/** 8 hex digits of FNV-1a over the text: a short, stable tag for a shortened stack name. */
function tag(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/**
 * `<stack>-<job>` (e.g. `MyJobs-nightly`); when that is over 64 characters, the stack name is
 * shortened and followed by a tag of the whole name (`<stack prefix>-<8 hex>-<job>`), so that it stays
 * unique and predictable.
 * @returns `undefined` when even the shortened form cannot fit (a job name over 52 characters): the
 *   job's entry must then set `functionName`.
 * @example stackFunctionName('MyJobs', 'nightly'); // 'MyJobs-nightly'
 */
export function stackFunctionName(stackName: string, job: string): string | undefined {
  const plain = `${stackName}-${job}`;
  if (plain.length <= MAX_FUNCTION_NAME_LENGTH) return plain;
  const room = MAX_FUNCTION_NAME_LENGTH - job.length - 10; // two dashes and the tag
  if (room < 1) return undefined;
  return `${stackName.slice(0, room)}-${tag(stackName)}-${job}`;
}
