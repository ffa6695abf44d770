/**
 * Turning stored values into JSON text and back, with large strings kept apart.
 *
 * `deflate` checks that a value is plain JSON (so what is read back equals what was written) and replaces every
 * string longer than the threshold with a placeholder, listing where each one was and the sha256 of its text.
 * A store keeps each such string once (keyed by its hash) and `inflate` puts them back. The placeholder text
 * itself is never trusted: the list of references is what says where a blob goes, so a user string that happens
 * to look like a placeholder round-trips unchanged.
 *
 * Pure except for hashing; shared by every store implementation.
 */
import { createHash } from 'node:crypto';
import { WeftError } from '../errors.js';

/** Strings longer than this many UTF-8 bytes are stored once as a blob and referenced. */
export const BLOB_THRESHOLD_BYTES = 4096;

/**
 * How deeply a stored value may nest. The walk below recurses per level, and V8's stack ends somewhere under 2,000
 * levels: past this limit the value is refused with a message naming the field rather than a stack overflow.
 * Real values (events, workflows, tool results) nest a few dozen levels at most.
 */
export const MAX_STORED_DEPTH = 512;

export type JsonPath = readonly (string | number)[];

export interface BlobRef {
  /** Where the string sits in the value: object keys and array indexes from the top. */
  readonly path: JsonPath;
  readonly sha256: string;
}

export interface Deflated {
  /** The value as JSON text, large strings replaced by placeholders. */
  readonly json: string;
  readonly refs: readonly BlobRef[];
  /** sha256 → text, one entry per distinct large string. */
  readonly blobs: ReadonlyMap<string, string>;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function placeholder(sha256: string): string {
  return `blob:sha256:${sha256}`;
}

function describePath(what: string, path: JsonPath): string {
  let text = what;
  for (const key of path) text += typeof key === 'number' ? `[${key}]` : `.${key}`;
  return text;
}

function kindOf(value: unknown): string {
  if (typeof value === 'number') return Number.isNaN(value) ? 'NaN' : String(value);
  if (typeof value !== 'object' || value === null) return `a ${typeof value}`;
  const name = (Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null)?.constructor?.name;
  return `a ${name ?? 'non-plain object'}`;
}

/**
 * Checks `value` is plain JSON and splits off large strings.
 * Accepted: null, booleans, finite numbers, strings, arrays, plain objects. Object properties whose value is
 * `undefined` are dropped (as JSON.stringify does); anything else (bigint, functions, symbols, NaN/Infinity,
 * Dates, Maps, class instances, `undefined` in an array, cycles, nesting deeper than MAX_STORED_DEPTH) is a
 * WeftError('STORE') naming the field.
 * `what` names the value in that message, e.g. `event 2 of the batch`.
 */
export function deflate(value: unknown, what: string, thresholdBytes = BLOB_THRESHOLD_BYTES): Deflated {
  // Most values (a run's events) are plain and small: checked without a copy, serialised as they are.
  if (isPlainSmall(value, thresholdBytes, new Set(), 0))
    return { json: JSON.stringify(value), refs: [], blobs: NO_BLOBS };
  const refs: BlobRef[] = [];
  const blobs = new Map<string, string>();
  const onPath = new Set<object>();
  const path: (string | number)[] = [];

  const fail = (reason: string): never => {
    throw new WeftError(
      'STORE',
      `Cannot store ${describePath(what, path)}: it is ${reason}; stored values must be JSON ` +
        '(plain objects, arrays, strings, finite numbers, booleans, null)',
    );
  };

  const walk = (item: unknown): unknown => {
    switch (typeof item) {
      case 'string': {
        // A UTF-8 character takes at most 3 bytes per UTF-16 unit, so short strings skip the byte count.
        if (item.length * 3 <= thresholdBytes || Buffer.byteLength(item, 'utf8') <= thresholdBytes) return item;
        const sha256 = sha256Hex(item);
        blobs.set(sha256, item);
        refs.push({ path: [...path], sha256 });
        return placeholder(sha256);
      }
      case 'boolean':
        return item;
      case 'number':
        return Number.isFinite(item) ? item : fail(kindOf(item));
      case 'object': {
        if (item === null) return null;
        if (onPath.has(item)) return fail('a circular reference');
        if (path.length >= MAX_STORED_DEPTH) {
          // The path itself is hundreds of keys long: name where it starts.
          const shown = describePath(what, path.slice(0, 5));
          throw new WeftError(
            'STORE',
            `Cannot store ${shown}…: it is nested deeper than ${MAX_STORED_DEPTH} levels; stored values must nest less`,
          );
        }
        if (Array.isArray(item)) {
          onPath.add(item);
          const copy = item.map((element: unknown, index) => {
            path.push(index);
            if (element === undefined) fail('undefined (inside an array)');
            const result = walk(element);
            path.pop();
            return result;
          });
          onPath.delete(item);
          return copy;
        }
        const prototype: unknown = Object.getPrototypeOf(item);
        if (prototype !== Object.prototype && prototype !== null) return fail(kindOf(item));
        onPath.add(item);
        // No prototype, so a `__proto__` key is kept as data rather than setting the prototype.
        const copy = Object.create(null) as Record<string, unknown>;
        for (const [key, element] of Object.entries(item)) {
          if (element === undefined) continue;
          path.push(key);
          copy[key] = walk(element);
          path.pop();
        }
        onPath.delete(item);
        return copy;
      }
      default:
        return fail(item === undefined ? 'undefined' : kindOf(item));
    }
  };

  const plain = walk(value);
  return { json: JSON.stringify(plain), refs, blobs };
}

const NO_BLOBS: ReadonlyMap<string, string> = new Map();

/**
 * Whether `item` is plain JSON that deflate would copy unchanged: no string over the threshold, nothing to refuse,
 * no cycle, not too deep. Then JSON.stringify of the value itself is what the copy would give (it drops undefined
 * properties the same way, and a plain object has no toJSON: a function is refused). False sends the value
 * through deflate's walk, which names what it refuses.
 */
function isPlainSmall(item: unknown, thresholdBytes: number, onPath: Set<object>, depth: number): boolean {
  switch (typeof item) {
    case 'string':
      return item.length * 3 <= thresholdBytes || Buffer.byteLength(item, 'utf8') <= thresholdBytes;
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(item);
    case 'object': {
      if (item === null) return true;
      if (onPath.has(item) || depth >= MAX_STORED_DEPTH) return false;
      onPath.add(item);
      let plain = true;
      if (Array.isArray(item)) {
        for (let index = 0; plain && index < item.length; index++) {
          // A hole is no element (deflate's map skips it too); undefined in an array is refused.
          if (!(index in item)) continue;
          const element: unknown = item[index];
          plain = element !== undefined && isPlainSmall(element, thresholdBytes, onPath, depth + 1);
        }
      } else {
        const prototype: unknown = Object.getPrototypeOf(item);
        plain = prototype === Object.prototype || prototype === null;
        if (plain)
          for (const key in item) {
            if (!Object.hasOwn(item, key)) continue;
            const element: unknown = (item as Record<string, unknown>)[key];
            if (element !== undefined && !isPlainSmall(element, thresholdBytes, onPath, depth + 1)) {
              plain = false;
              break;
            }
          }
      }
      onPath.delete(item);
      return plain;
    }
    default:
      return false;
  }
}

/** Serialised form of a reference list, for a `blob_refs` column; null when there are none. */
export function encodeRefs(refs: readonly BlobRef[]): string | null {
  return refs.length === 0 ? null : JSON.stringify(refs.map((ref) => [ref.path, ref.sha256]));
}

export function decodeRefs(text: string | null, what: string): BlobRef[] {
  if (text === null) return [];
  const parsed = parseJson(text, what);
  const valid =
    Array.isArray(parsed) &&
    parsed.every(
      (entry) =>
        Array.isArray(entry) &&
        entry.length === 2 &&
        Array.isArray(entry[0]) &&
        (entry[0] as unknown[]).every((key) => typeof key === 'string' || typeof key === 'number') &&
        typeof entry[1] === 'string',
    );
  if (!valid) throw new WeftError('STORE', `The run store holds unreadable blob references for ${what}`);
  return (parsed as [JsonPath, string][]).map(([refPath, sha256]) => ({ path: refPath, sha256 }));
}

export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new WeftError('STORE', `The run store holds unreadable JSON for ${what}`, { cause: error });
  }
}

/**
 * Parses `json` and puts each referenced blob back where it was. `blob` looks a hash up; a missing blob is a
 * WeftError('STORE').
 */
export function inflate(
  json: string,
  refs: readonly BlobRef[],
  blob: (sha256: string) => string | undefined,
  what: string,
): unknown {
  let value = parseJson(json, what);
  for (const ref of refs) {
    const text = blob(ref.sha256);
    if (text === undefined) {
      throw new WeftError('STORE', `The run store is missing blob ${ref.sha256} referenced by ${what}`);
    }
    if (ref.path.length === 0) {
      value = text;
      continue;
    }
    let parent: unknown = value;
    for (const key of ref.path.slice(0, -1)) parent = (parent as Record<string | number, unknown> | null)?.[key];
    const last = ref.path[ref.path.length - 1] as string | number;
    if (typeof parent !== 'object' || parent === null) {
      throw new WeftError('STORE', `The run store holds a blob reference to a missing field of ${what}`);
    }
    // defineProperty, not assignment, so a `__proto__` key stays data.
    Object.defineProperty(parent, last, { value: text, writable: true, enumerable: true, configurable: true });
  }
  return value;
}
