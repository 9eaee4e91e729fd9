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
   * `path = v`, `path < v`, `path <= v`, `path >= v`, `path <> v`: false when the attribute is missing or of another
   * type (`<>` included: pair it with `exists` to say "present and different").
   */
  | {
      readonly kind: 'compare';
      readonly path: string;
      readonly op: '=' | '<' | '<=' | '>=' | '<>';
      readonly value: unknown;
    }
  /** `NOT contains(path, v)`: true when the attribute is missing. */
  | { readonly kind: 'not-contains'; readonly path: string; readonly value: unknown }
  /** `contains(path, v)`: false when the attribute is missing. */
  | { readonly kind: 'contains'; readonly path: string; readonly value: unknown }
  /** `size(path) < n`: false when the attribute is missing (a set's or list's element count). */
  | { readonly kind: 'size-lt'; readonly path: string; readonly value: number }
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
/** `path >= value`. */
export const ge = (path: string, value: unknown): Condition => ({ kind: 'compare', path, op: '>=', value });
/** `NOT contains(path, value)`. */
export const notContains = (path: string, value: unknown): Condition => ({
  kind: 'not-contains',
  path,
  value,
});
/** `contains(path, value)`. */
export const contains = (path: string, value: unknown): Condition => ({ kind: 'contains', path, value });
/** `size(path) < n`. */
export const sizeLt = (path: string, value: number): Condition => ({ kind: 'size-lt', path, value });
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
 * missing counts as 0; `addToSet`: string-set elements, the set created when missing), DELETE
 * (`deleteFromSet`: string-set elements; DynamoDB removes a set left empty) and REMOVE. Attributes
 * set to `undefined` are left out.
 */
export interface Update {
  readonly set: Readonly<Record<string, unknown>>;
  readonly add?: Readonly<Record<string, number>>;
  readonly addToSet?: Readonly<Record<string, readonly string[]>>;
  readonly deleteFromSet?: Readonly<Record<string, readonly string[]>>;
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
 * The placeholder of each attribute name that can be its own (`#name`; `null` for a name that cannot,
 * and for a name of the form `n<digits>`, which would meet the placeholders of the others),
 * remembered per name: every request names the same few dozen attributes, and a remembered string is
 * one V8 has already internalised as a property key. Bounded: past {@link PLAIN_NAME_CACHE_SIZE}
 * names it starts over.
 */
const PLAIN_NAME_CACHE_SIZE = 1_024;
const plainNames = new Map<string, string | null>();
function ownPlaceholder(path: string): string | null {
  let placeholder = plainNames.get(path);
  if (placeholder === undefined) {
    // `n<digits>` is the form of the placeholders handed out to the other names: never its own.
    placeholder = /^[A-Za-z][A-Za-z0-9_]*$/.test(path) && !/^n[0-9]+$/.test(path) ? `#${path}` : null;
    if (plainNames.size >= PLAIN_NAME_CACHE_SIZE) plainNames.clear();
    plainNames.set(path, placeholder);
  }
  return placeholder;
}

/** `:v0` … `:v63`, made once: the value placeholders of every request (a longer request makes its own). */
export const VALUE_PLACEHOLDERS: readonly string[] = Array.from({ length: 64 }, (_, i) => `:v${i}`);

/**
 * One request's placeholders as they are handed out: `#name` (or `#n<i>` for a name that cannot be
 * its own placeholder) and `:v<i>`. A class rather than closures: one is made per request.
 */
class Placeholders {
  readonly names: Record<string, string> = {};
  readonly values: Record<string, unknown> = {};
  /** Placeholders of the names that cannot be their own, made on the first such name. */
  private others: Map<string, string> | undefined;
  nameCount = 0;
  valueCount = 0;

  name(path: string): string {
    const own = ownPlaceholder(path);
    if (own !== null) {
      if (this.names[own] === undefined) {
        this.names[own] = path;
        this.nameCount++;
      }
      return own;
    }
    this.others ??= new Map();
    let p = this.others.get(path);
    if (p === undefined) {
      p = `#n${this.nameCount++}`;
      this.others.set(path, p);
      this.names[p] = path;
    }
    return p;
  }

  value(v: unknown): string {
    const i = this.valueCount++;
    const p = VALUE_PLACEHOLDERS[i] ?? `:v${i}`;
    this.values[p] = v;
    return p;
  }

  cond(c: Condition): string {
    switch (c.kind) {
      case 'not-exists':
        return `attribute_not_exists(${this.name(c.path)})`;
      case 'exists':
        return `attribute_exists(${this.name(c.path)})`;
      case 'compare':
        return `${this.name(c.path)} ${c.op} ${this.value(c.value)}`;
      case 'not-contains':
        return `NOT contains(${this.name(c.path)}, ${this.value(c.value)})`;
      case 'contains':
        return `contains(${this.name(c.path)}, ${this.value(c.value)})`;
      case 'size-lt':
        return `size(${this.name(c.path)}) < ${this.value(c.value)}`;
      case 'and':
      case 'or': {
        let out = '';
        for (const x of c.of) {
          if (out !== '') out += c.kind === 'and' ? ' AND ' : ' OR ';
          out += x.kind === 'and' || x.kind === 'or' ? `(${this.cond(x)})` : this.cond(x);
        }
        return out;
      }
    }
  }

  update(update: Update): string {
    let sets = '';
    for (const k in update.set) {
      const v = update.set[k];
      if (v === undefined) continue;
      const part =
        v instanceof IfNotExists
          ? `${this.name(k)} = if_not_exists(${this.name(v.path)}, ${this.value(v.value)})`
          : v instanceof AppendToList
            ? `${this.name(k)} = list_append(if_not_exists(${this.name(v.path)}, ${this.value([])}), ${this.value([...v.values])})`
            : `${this.name(k)} = ${this.value(v)}`;
      sets += sets === '' ? `SET ${part}` : `, ${part}`;
    }
    let adds = '';
    for (const k in update.add ?? {}) {
      const part = `${this.name(k)} ${this.value((update.add as Record<string, number>)[k])}`;
      adds += adds === '' ? `ADD ${part}` : `, ${part}`;
    }
    for (const k in update.addToSet ?? {}) {
      const part = `${this.name(k)} ${this.value(new Set((update.addToSet as Record<string, string[]>)[k]))}`;
      adds += adds === '' ? `ADD ${part}` : `, ${part}`;
    }
    let deletes = '';
    for (const k in update.deleteFromSet ?? {}) {
      const part = `${this.name(k)} ${this.value(new Set((update.deleteFromSet as Record<string, string[]>)[k]))}`;
      deletes += deletes === '' ? `DELETE ${part}` : `, ${part}`;
    }
    let removes = '';
    for (const k of update.remove ?? [])
      removes += removes === '' ? `REMOVE ${this.name(k)}` : `, ${this.name(k)}`;
    let out = sets;
    if (adds !== '') out += out === '' ? adds : ` ${adds}`;
    if (deletes !== '') out += out === '' ? deletes : ` ${deletes}`;
    if (removes !== '') out += out === '' ? removes : ` ${removes}`;
    return out;
  }
}

/** Build the expression strings, names and values of a request from its condition and update. */
export function compileExpressions(condition?: Condition, update?: Update): CompiledExpressions {
  const p = new Placeholders();
  const ConditionExpression = condition && p.cond(condition);
  const UpdateExpression = update && p.update(update);
  return {
    ...(ConditionExpression !== undefined && { ConditionExpression }),
    ...(UpdateExpression !== undefined && { UpdateExpression }),
    ...(p.nameCount > 0 && { ExpressionAttributeNames: p.names }),
    ...(p.valueCount > 0 && { ExpressionAttributeValues: p.values }),
  };
}
