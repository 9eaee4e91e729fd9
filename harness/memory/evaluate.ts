/**
 * Evaluation of the protocol's declared condition and update forms (lib/store/protocol/expression.ts)
 * on a plain item, with DynamoDB's semantics: a comparison with a missing attribute or one of another
 * type is false; `NOT contains` of a missing attribute is true; SET right-hand sides read the item as
 * it was; ADD counts a missing number as 0 and adds set elements; DELETE removes set elements (an
 * empty set is removed); `size` counts a set's or list's elements. Tested against DynamoDB Local by the store contract suites.
 */
import {
  AppendToList,
  type Condition,
  IfNotExists,
  type Update,
} from '../../lib/store/protocol/expression.js';
import type { Item } from '../../lib/store/protocol/request.js';

function comparable(a: unknown, b: unknown): a is number | string {
  return (typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string');
}

/** True when `condition` holds on `item` (undefined: no item). */
export function holds(condition: Condition, item: Item | undefined): boolean {
  switch (condition.kind) {
    case 'not-exists':
      return item?.[condition.path] === undefined;
    case 'exists':
      return item?.[condition.path] !== undefined;
    case 'compare': {
      const v = item?.[condition.path];
      const w = condition.value;
      if (!comparable(v, w)) return false;
      if (condition.op === '=') return v === w;
      if (condition.op === '<>') return v !== w;
      if (condition.op === '>=') return v >= (w as typeof v);
      return condition.op === '<' ? v < (w as typeof v) : v <= (w as typeof v);
    }
    case 'not-contains': {
      const v = item?.[condition.path];
      if (v instanceof Set || Array.isArray(v)) return ![...v].includes(condition.value);
      if (typeof v === 'string' && typeof condition.value === 'string') return !v.includes(condition.value);
      return true;
    }
    case 'contains': {
      const v = item?.[condition.path];
      if (v instanceof Set || Array.isArray(v)) return [...v].includes(condition.value);
      if (typeof v === 'string' && typeof condition.value === 'string') return v.includes(condition.value);
      return false;
    }
    case 'size-lt': {
      const v = item?.[condition.path];
      if (v instanceof Set) return v.size < condition.value;
      if (Array.isArray(v) || typeof v === 'string') return v.length < condition.value;
      return false;
    }
    case 'and':
      return condition.of.every((c) => holds(c, item));
    case 'or':
      return condition.of.some((c) => holds(c, item));
  }
}

/** The item after `update` (a missing item is created with its key). */
export function applyUpdate(item: Item | undefined, key: Item, update: Update): Item {
  const next: Item = { ...item, ...key };
  for (const [k, v] of Object.entries(update.set)) {
    if (v === undefined) continue;
    next[k] =
      v instanceof IfNotExists
        ? (item?.[v.path] ?? v.value)
        : v instanceof AppendToList
          ? [...((item?.[v.path] as unknown[] | undefined) ?? []), ...structuredClone([...v.values])]
          : v;
  }
  for (const [k, n] of Object.entries(update.add ?? {})) next[k] = Number(item?.[k] ?? 0) + n;
  for (const [k, values] of Object.entries(update.addToSet ?? {}))
    next[k] = new Set([...((item?.[k] as Set<string> | undefined) ?? []), ...values]);
  for (const [k, values] of Object.entries(update.deleteFromSet ?? {})) {
    const left = new Set((item?.[k] as Set<string> | undefined) ?? []);
    for (const x of values) left.delete(x);
    if (left.size === 0) delete next[k];
    else next[k] = left;
  }
  for (const k of update.remove ?? []) delete next[k];
  return next;
}

/** A put's item without `undefined` attributes (the Document client drops them). */
export function putItem(item: Item): Item {
  return Object.fromEntries(Object.entries(item).filter(([, v]) => v !== undefined));
}
