// @ts-check
/**
 * Plan history's pure part: from two consecutive plan versions and the server's diff, the class of each node in
 * either drawing (the older one shows what was removed, the newer one what was added, changed or rewired) and the
 * rows of the change list. A subtask both changed and rewired carries both classes.
 */

/**
 * @typedef {{ id: string, objective: string, agent: string, dependsOn: string[] }} PlanSubtask
 * @typedef {{ added: string[], removed: string[], changed: string[], rewired: string[] }} PlanDiff
 * @typedef {{ kind: 'added' | 'removed' | 'changed' | 'rewired', id: string, before?: string, after?: string }} DiffRow
 */

export const DIFF_KINDS = /** @type {const} */ (['added', 'removed', 'changed', 'rewired']);

/**
 * @param {PlanDiff | undefined} diff
 * @returns {{ before: Map<string, string>, after: Map<string, string> }} id → space-separated diff classes
 */
export function diffClasses(diff) {
  /** @type {Map<string, string>} */
  const before = new Map();
  /** @type {Map<string, string>} */
  const after = new Map();
  if (!diff) return { before, after };
  /** @param {Map<string, string>} map @param {string} id @param {string} kind */
  const add = (map, id, kind) => map.set(id, map.has(id) ? `${map.get(id)} diff-${kind}` : `diff-${kind}`);
  for (const id of diff.removed ?? []) add(before, id, 'removed');
  for (const id of diff.added ?? []) add(after, id, 'added');
  for (const kind of /** @type {const} */ (['changed', 'rewired']))
    for (const id of diff[kind] ?? []) {
      add(before, id, kind);
      add(after, id, kind);
    }
  return { before, after };
}

/**
 * The change list: one row per subtask and kind, in the order added, removed, changed, rewired; `before` and
 * `after` say what changed in words (objective and role, or the dependencies).
 * @param {PlanDiff | undefined} diff
 * @param {{ subtasks: PlanSubtask[] } | undefined} older
 * @param {{ subtasks: PlanSubtask[] }} newer
 * @returns {DiffRow[]}
 */
export function diffRows(diff, older, newer) {
  if (!diff) return [];
  const was = new Map((older?.subtasks ?? []).map((subtask) => [subtask.id, subtask]));
  const is = new Map(newer.subtasks.map((subtask) => [subtask.id, subtask]));
  /** @type {DiffRow[]} */
  const rows = [];
  for (const id of diff.added ?? []) rows.push({ kind: 'added', id, after: describe(is.get(id)) });
  for (const id of diff.removed ?? []) rows.push({ kind: 'removed', id, before: describe(was.get(id)) });
  for (const id of diff.changed ?? [])
    rows.push({ kind: 'changed', id, before: describe(was.get(id)), after: describe(is.get(id)) });
  for (const id of diff.rewired ?? [])
    rows.push({ kind: 'rewired', id, before: dependencies(was.get(id)), after: dependencies(is.get(id)) });
  return rows;
}

/** @param {PlanSubtask | undefined} subtask */
function describe(subtask) {
  return subtask ? `${subtask.agent}: ${subtask.objective}` : '';
}

/** @param {PlanSubtask | undefined} subtask */
function dependencies(subtask) {
  if (!subtask) return '';
  return subtask.dependsOn.length > 0 ? `after ${subtask.dependsOn.join(', ')}` : 'no dependencies';
}

/**
 * Where two texts differ: the common start and end, and the middle each has in their place (empty when one only
 * adds). Enough to mark a revised objective's new words without a full diff.
 * @param {string} before @param {string} after
 * @returns {{ prefix: string, removed: string, added: string, suffix: string }}
 */
export function textChange(before, after) {
  let start = 0;
  const shorter = Math.min(before.length, after.length);
  while (start < shorter && before[start] === after[start]) start += 1;
  let end = 0;
  while (end < shorter - start && before[before.length - 1 - end] === after[after.length - 1 - end]) end += 1;
  return {
    prefix: before.slice(0, start),
    removed: before.slice(start, before.length - end),
    added: after.slice(start, after.length - end),
    suffix: before.slice(before.length - end),
  };
}
