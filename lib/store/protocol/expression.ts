/**
 * The condition and update forms the protocol uses, as data, and their DynamoDB expression text.
 * Each declared operation (operations.ts) states its condition and update with these builders; the
 * DynamoDB backend sends {@link compileExpressions}' output, and the in-memory backend of the harness
 * evaluates the same data. Only top-level attributes; only the comparisons below.
 */

/** A condition on the current item (DynamoDB condition expression semantics). */
export type Condition =
  /** `attribute_not_exists(path)` */
  | { readonly kind: 'not-exists'; readonly path: string }
  /** `attribute_exists(path)` */
  | { readonly kind: 'exists'; readonly path: string }
  /**
   * `path = v`, `path < v`, `path <= v`, `path <> v`: false when the attribute is missing or of another
   * type (`<>` included: pair it with `exists` to say "present and different").
   */
  | {
      readonly kind: 'compare';
      readonly path: string;
      readonly op: '=' | '<' | '<=' | '<>';
      readonly value: unknown;
    }
  /** `NOT contains(path, v)`: true when the attribute is missing. */
  | { readonly kind: 'not-contains'; readonly path: string; readonly value: unknown }
  | { readonly kind: 'and' | 'or'; readonly of: readonly Condition[] };

/** `attribute_not_exists(path)`. */
export const notExists = (path: string): Condition => ({ kind: 'not-exists', path });
/** `path = value`. */
export const eq = (path: string, value: unknown): Condition => ({ kind: 'compare', path, op: '=', value });
/** `attribute_exists(path)`. */
export const exists = (path: string): Condition => ({ kind: 'exists', path });
/** `path <> value`. */
export const ne = (path: string, value: unknown): Condition => ({ kind: 'compare', path, op: '<>', value });
/** `path < value`. */
export const lt = (path: string, value: unknown): Condition => ({ kind: 'compare', path, op: '<', value });
/** `path <= value`. */
export const le = (path: string, value: unknown): Condition => ({ kind: 'compare', path, op: '<=', value });
/** `NOT contains(path, value)`. */
export const notContains = (path: string, value: unknown): Condition => ({
  kind: 'not-contains',
  path,
  value,
});
/** All of the conditions. */
export const and = (...of: Condition[]): Condition => ({ kind: 'and', of });
/** Any of the conditions. */
export const or = (...of: Condition[]): Condition => ({ kind: 'or', of });

/** `if_not_exists(path, value)` on the right of a SET: the attribute's value before the update, else `value`. */
export class IfNotExists {
  constructor(
    readonly path: string,
    readonly value: unknown,
  ) {}
}

/**
 * `list_append(if_not_exists(path, []), values)` on the right of a SET: the list before the update
 * (empty when missing) with `values` appended.
 */
export class AppendToList {
  constructor(
    readonly path: string,
    readonly values: readonly unknown[],
  ) {}
}

/**
 * An update: SET (right-hand sides read the item as it was before the update), ADD (numbers:
 * missing counts as 0) and REMOVE. Attributes set to `undefined` are left out.
 */
export interface Update {
  readonly set: Readonly<Record<string, unknown>>;
  readonly add?: Readonly<Record<string, number>>;
  readonly remove?: readonly string[];
}

/** The expression part of a DynamoDB request. */
export interface CompiledExpressions {
  readonly ConditionExpression?: string;
  readonly UpdateExpression?: string;
  readonly ExpressionAttributeNames?: Record<string, string>;
  readonly ExpressionAttributeValues?: Record<string, unknown>;
}

/**
 * Whether an attribute name can be its own placeholder (`#name`), remembered per name: every request
 * names the same few dozen attributes. Bounded: past {@link PLAIN_NAME_CACHE_SIZE} names it starts over.
 */
const PLAIN_NAME_CACHE_SIZE = 1_024;
const plainNames = new Map<string, boolean>();
function plainName(path: string): boolean {
  let plain = plainNames.get(path);
  if (plain === undefined) {
    plain = /^[A-Za-z][A-Za-z0-9_]*$/.test(path);
    if (plainNames.size >= PLAIN_NAME_CACHE_SIZE) plainNames.clear();
    plainNames.set(path, plain);
  }
  return plain;
}

/** Build the expression strings, names and values of a request from its condition and update. */
export function compileExpressions(condition?: Condition, update?: Update): CompiledExpressions {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const byName = new Map<string, string>();
  let valueCount = 0;
  const name = (path: string): string => {
    let p = byName.get(path);
    if (p === undefined) {
      p = plainName(path) ? `#${path}` : `#n${byName.size}`;
      byName.set(path, p);
      names[p] = path;
    }
    return p;
  };
  const value = (v: unknown): string => {
    const p = `:v${valueCount++}`;
    values[p] = v;
    return p;
  };
  const cond = (c: Condition): string => {
    switch (c.kind) {
      case 'not-exists':
        return `attribute_not_exists(${name(c.path)})`;
      case 'exists':
        return `attribute_exists(${name(c.path)})`;
      case 'compare':
        return `${name(c.path)} ${c.op} ${value(c.value)}`;
      case 'not-contains':
        return `NOT contains(${name(c.path)}, ${value(c.value)})`;
      case 'and':
      case 'or':
        return c.of
          .map((x) => (x.kind === 'and' || x.kind === 'or' ? `(${cond(x)})` : cond(x)))
          .join(c.kind === 'and' ? ' AND ' : ' OR ');
    }
  };
  const ConditionExpression = condition && cond(condition);
  let UpdateExpression: string | undefined;
  if (update) {
    const sets = Object.entries(update.set)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) =>
        v instanceof IfNotExists
          ? `${name(k)} = if_not_exists(${name(v.path)}, ${value(v.value)})`
          : v instanceof AppendToList
            ? `${name(k)} = list_append(if_not_exists(${name(v.path)}, ${value([])}), ${value([...v.values])})`
            : `${name(k)} = ${value(v)}`,
      );
    const adds = Object.entries(update.add ?? {}).map(([k, n]) => `${name(k)} ${value(n)}`);
    const removes = (update.remove ?? []).map(name);
    UpdateExpression = [
      sets.length > 0 ? `SET ${sets.join(', ')}` : '',
      adds.length > 0 ? `ADD ${adds.join(', ')}` : '',
      removes.length > 0 ? `REMOVE ${removes.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join(' ');
  }
  return {
    ...(ConditionExpression !== undefined && { ConditionExpression }),
    ...(UpdateExpression !== undefined && { UpdateExpression }),
    ...(byName.size > 0 && { ExpressionAttributeNames: names }),
    ...(valueCount > 0 && { ExpressionAttributeValues: values }),
  };
}
