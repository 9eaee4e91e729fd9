/**
 * `T` with its `readonly` members writable: the type of an object being built member by member (its
 * optional members assigned when present, not spread in), returned as `T`.
 */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };
