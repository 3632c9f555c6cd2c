/**
 * The lodash functions irc-framework requires (`require("lodash/each")` and 13 more), in one
 * small module. The build (packages/core/tsup.config.ts) resolves each `lodash/<name>` to the
 * export of that name here, so a daemon no longer loads ~190 KB of lodash internals (issue 30).
 *
 * Each function keeps lodash's semantics for the ways irc-framework calls it: collections are
 * arrays, array-likes (`arguments`, strings) or plain objects (own enumerable keys); a
 * predicate is a function, a property name (`_.map(prefixes, "mode")`) or an object matched
 * partially (`_.find(users, { nick })`); `null` and `undefined` are empty collections; values
 * compare by SameValueZero. The test packages/core/test/irc-shims.test.ts runs irc-framework's
 * own code through this module and compares each function with lodash on the same inputs.
 */

type Collection = ArrayLike<unknown> | Record<string, unknown> | null | undefined;
type Iteratee = (value: any, key: any, collection: any) => unknown;
type Predicate = Iteratee | string | Record<string, unknown>;

/** lodash's `forEach`: calls `fn(value, key, collection)` for each entry until it returns `false`. */
export function each<T extends Collection>(collection: T, fn: Iteratee): T {
  forEachEntry(collection, (value, key) => fn(value, key, collection) !== false);
  return collection;
}

/** lodash's `find`: the first value the predicate accepts, or `undefined`. */
export function find(collection: Collection, predicate: Predicate): any {
  const test = toIteratee(predicate);
  let found: unknown;
  forEachEntry(collection, (value, key) => {
    if (!test(value, key, collection)) return true;
    found = value;
    return false;
  });
  return found;
}

/** lodash's `filter`: a new array of the values the predicate accepts. */
export function filter(collection: Collection, predicate: Predicate): any[] {
  const test = toIteratee(predicate);
  const out: unknown[] = [];
  forEachEntry(collection, (value, key) => {
    if (test(value, key, collection)) out.push(value);
    return true;
  });
  return out;
}

/** lodash's `map`: a new array of what the iteratee (or property name) gives for each value. */
export function map(collection: Collection, iteratee: Iteratee | string): any[] {
  const fn = toIteratee(iteratee);
  const out: unknown[] = [];
  forEachEntry(collection, (value, key) => {
    out.push(fn(value, key, collection));
    return true;
  });
  return out;
}

/** lodash's `reduce`: folds the values left to right; without `accumulator`, starts from the first value. */
export function reduce(collection: Collection, fn: (acc: any, value: any, key: any, collection: any) => unknown, ...accumulator: [unknown?]): any {
  let started = accumulator.length > 0;
  let acc = accumulator[0];
  forEachEntry(collection, (value, key) => {
    if (started) acc = fn(acc, value, key, collection);
    else [acc, started] = [value, true];
    return true;
  });
  return acc;
}

/**
 * lodash's `clone` for what irc-framework clones (a message's params array and tags object): a
 * shallow copy. As in lodash, an object without a constructor (`Object.create(null)`, which is
 * how irc-framework makes tags) comes back as a plain `{}`, and primitives as themselves.
 */
export function clone<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.slice() as T;
  const proto = Object.getPrototypeOf(value) as object | null;
  const copy = (typeof (value as { constructor?: unknown }).constructor === "function" && proto ? Object.create(proto) : {}) as Record<PropertyKey, unknown>;
  for (const key of Object.keys(value)) assignValue(copy, key, (value as Record<string, unknown>)[key]);
  for (const sym of Object.getOwnPropertySymbols(value)) {
    if (Object.prototype.propertyIsEnumerable.call(value, sym)) copy[sym] = (value as Record<symbol, unknown>)[sym];
  }
  return copy as T;
}

/** lodash's `pull`: removes every occurrence of each value from `array` in place, and returns it. */
export function pull<T>(array: T[], ...values: T[]): T[] {
  if (!array || array.length === 0 || values.length === 0) return array;
  for (let i = array.length - 1; i >= 0; i--) if (values.some((v) => sameValueZero(v, array[i]))) array.splice(i, 1);
  return array;
}

/** lodash's `uniq`: the values of `array` without repeats, in first-seen order. */
export function uniq<T>(array: ArrayLike<T> | null | undefined): T[] {
  return array && array.length ? [...new Set(Array.from(array))] : [];
}

/** lodash's `intersection`: the distinct values of the first array found in every other one, in its order. */
export function intersection<T>(...arrays: (ArrayLike<T> | null | undefined)[]): T[] {
  const sets = arrays.slice(1).map((a) => new Set(isArrayLike(a) ? Array.from(a) : []));
  return uniq(isArrayLike(arrays[0]) ? arrays[0] : []).filter((v) => sets.every((s) => s.has(v)));
}

/** lodash's `difference`: the values of `array` (repeats kept) found in none of the other arrays. */
export function difference<T>(array: ArrayLike<T> | null | undefined, ...others: (ArrayLike<T> | null | undefined)[]): T[] {
  if (!isArrayLike(array)) return [];
  const drop = new Set(others.flatMap((o) => (isArrayLike(o) ? Array.from(o) : [])));
  return Array.from(array).filter((v) => !drop.has(v));
}

/** lodash's `defer`: calls `fn(...args)` once the current call stack has cleared (a 1 ms timer); returns the timer. */
export function defer(fn: (...args: any[]) => unknown, ...args: unknown[]): ReturnType<typeof setTimeout> {
  if (typeof fn !== "function") throw new TypeError("Expected a function");
  return setTimeout(() => fn(...args), 1);
}

/** lodash's `bind`: `fn` with `this` fixed to `thisArg` and the leading arguments `partials`. */
export function bind(fn: (...args: any[]) => unknown, thisArg: unknown, ...partials: unknown[]): (...args: any[]) => any {
  if (typeof fn !== "function") throw new TypeError("Expected a function");
  return fn.bind(thisArg, ...partials);
}

/** lodash's `partial`: `fn` with the leading arguments `partials`; `this` passes through. */
export function partial(fn: (...args: any[]) => unknown, ...partials: unknown[]): (...args: any[]) => any {
  if (typeof fn !== "function") throw new TypeError("Expected a function");
  return function (this: unknown, ...args: unknown[]) {
    return fn.apply(this, [...partials, ...args]);
  };
}

/** lodash's `extend` (`assignIn`): copies own and inherited enumerable properties of each source onto `object`. */
export function extend<T extends object>(object: T, ...sources: unknown[]): any {
  const target = Object(object) as Record<string, unknown>;
  for (const source of sources) {
    if (source === null || source === undefined) continue;
    const from = Object(source) as Record<string, unknown>;
    for (const key in from) assignValue(target, key, from[key]);
  }
  return target;
}

// ----------------------------------------------------------------------------------------------

function isArrayLike(value: unknown): value is ArrayLike<unknown> {
  if (value === null || value === undefined || typeof value === "function") return false;
  const length = (value as { length?: unknown }).length;
  return typeof length === "number" && length >= 0 && length % 1 === 0 && length <= Number.MAX_SAFE_INTEGER;
}

/** Visits array-likes by index and other objects by own enumerable key, until `visit` returns false. */
function forEachEntry(collection: Collection, visit: (value: unknown, key: number | string) => boolean): void {
  if (collection === null || collection === undefined) return;
  if (isArrayLike(collection)) {
    const list = typeof collection === "string" ? Object(collection) : collection;
    for (let i = 0; i < list.length; i++) if (!visit(list[i], i)) return;
    return;
  }
  const object = collection as Record<string, unknown>;
  for (const key of Object.keys(object)) if (!visit(object[key], key)) return;
}

function toIteratee(predicate: Predicate): Iteratee {
  if (typeof predicate === "function") return predicate;
  if (typeof predicate === "string") return (value) => (value === null || value === undefined ? undefined : (value as Record<string, unknown>)[predicate]);
  if (predicate === null || predicate === undefined) return (value) => value;
  const source = predicate;
  return (value) => isMatch(value, source);
}

/** lodash's `matches`: every property of `source` is in `value`, equal (objects compared the same way, partially). */
function isMatch(value: unknown, source: Record<string, unknown>): boolean {
  if (value === null || value === undefined) return Object.keys(source).length === 0;
  const object = Object(value) as Record<string, unknown>;
  return Object.keys(source).every((key) => {
    const want = source[key];
    if (!(key in object)) return false;
    const have = object[key];
    if (want !== null && typeof want === "object") return have !== null && typeof have === "object" && isMatch(have, want as Record<string, unknown>);
    return sameValueZero(have, want);
  });
}

function sameValueZero(a: unknown, b: unknown): boolean {
  return a === b || (a !== a && b !== b);
}

/** Sets a key as lodash's baseAssignValue does: `__proto__` as an own property, never the prototype. */
function assignValue(target: Record<PropertyKey, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}
