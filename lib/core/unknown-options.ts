/**
 * Unknown options in an object a valibot object schema describes: the first key the schema (or one of
 * its nested object schemas) does not know, and the known name nearest to it. valibot's `v.object`
 * drops unknown keys without a word, so a misspelt option (`catchup` for `catchUp`) would be ignored.
 */

/** The parts of a valibot schema this walk reads (object entries, an optional's wrapped schema). */
interface SchemaShape {
  readonly type?: string;
  readonly entries?: Readonly<Record<string, unknown>>;
  readonly wrapped?: unknown;
}

/** An option the schema does not know. */
export interface UnknownOption {
  /** Path of the unknown key, e.g. `['catchup']` or `['lease', 'durationSecs']`. */
  readonly path: readonly string[];
  /** The known name nearest to it, when one is close enough to be a misspelling. */
  readonly nearest: string | undefined;
  /** The names known at that level, in schema order. */
  readonly known: readonly string[];
}

function objectEntries(schema: unknown): Readonly<Record<string, unknown>> | undefined {
  let s = schema as SchemaShape | undefined;
  // optional / nullable / nullish wrap the object schema; a pipe keeps its root schema's entries.
  while (s?.wrapped !== undefined) s = s.wrapped as SchemaShape;
  return s?.entries;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** Edit distance (insert, delete, substitute, swap of neighbours) between two short names. */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/**
 * The known name nearest to `name`: the same name in another case first, else the one at the smallest
 * edit distance if that is at most a third of the name's length (at least 2), else the one `name`
 * (4 characters or more) begins (`timeout` → `timeoutSeconds`).
 * @example nearestName('catchup', ['name', 'catchUp']); // 'catchUp'
 */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const sameCase = known.find((k) => k.toLowerCase() === lower);
  if (sameCase !== undefined) return sameCase;
  let best: { name: string; d: number } | undefined;
  for (const k of known) {
    const d = distance(lower, k.toLowerCase());
    if (best === undefined || d < best.d) best = { name: k, d };
  }
  if (best !== undefined && best.d <= Math.max(2, Math.floor(name.length / 3))) return best.name;
  return lower.length >= 4 ? known.find((k) => k.toLowerCase().startsWith(lower)) : undefined;
}

/**
 * The first key of `input` (depth first, nested objects included) that `schema` does not describe.
 * @param extra names accepted at the top level beside the schema's (options that are not data, such as
 *   a job's `run`).
 * @returns `undefined` when every key is known (or `input` is not an object: the schema reports that).
 */
export function findUnknownOption(
  schema: unknown,
  input: unknown,
  extra: readonly string[] = [],
  path: readonly string[] = [],
): UnknownOption | undefined {
  const entries = objectEntries(schema);
  if (entries === undefined || !isPlainObject(input)) return undefined;
  const known = [...Object.keys(entries), ...extra];
  for (const [key, value] of Object.entries(input)) {
    if (!known.includes(key)) {
      return { path: [...path, key], nearest: nearestName(key, known), known };
    }
    const nested = findUnknownOption(entries[key], value, [], [...path, key]);
    if (nested) return nested;
  }
  return undefined;
}

/** "unknown option catchup — did you mean catchUp?" (or the known names, when none is near). */
export function unknownOptionMessage(u: UnknownOption): string {
  const name = u.path.join('.');
  return u.nearest !== undefined
    ? `unknown option ${name} — did you mean ${[...u.path.slice(0, -1), u.nearest].join('.')}?`
    : `unknown option ${name}; the known options here are ${u.known.join(', ')}`;
}
