// @ts-check
/**
 * The run page's live state, folded from the event stream in order: each subtask's status and attempts, and the
 * run's totals. The same events the CLI's progress view reads; a reconnect resumes after the last sequence, and an
 * event seen twice (sequence not above the last) is dropped.
 */

/**
 * @typedef {{
 *   attempt: number, agent: string, start: number, end?: number, status?: string, outcome?: string,
 *   toolCallsFailed?: number, verdict?: string
 * }} AttemptBar
 * @typedef {{
 *   lastSeq: number, events: number, version: number, status: string, reason?: string, lastAt: number,
 *   calls: number, inputTokens: number, outputTokens: number, costUsd: number, toolCalls: number,
 *   toolCallsFailed: number, toolFailures: Map<string, number>,
 *   subtasks: Map<string, string>, attempts: Map<string, AttemptBar[]>,
 *   plan: Set<string>, errors: Map<string, string>, teams: number, verdicts: Map<string, string>
 * }} RunFold
 * `errors` says why each subtask that is failed now failed (its error, or the verifier's verdict); `verdicts` holds
 * each subtask's last verdict other than accept, for that.
 * `subtasks` keeps the status of every subtask any plan version had (a later version may bring one back);
 * `plan` is the current version's ids, which the counts and the graph show.
 * `toolFailures` counts each subtask's failed tool calls over all its attempts (as `weft show` does): a completed
 * subtask with some is marked, since its output may claim what a failed call did not do.
 */

/** @returns {RunFold} */
export function emptyFold() {
  return {
    lastSeq: 0,
    events: 0,
    version: 0,
    status: 'running',
    lastAt: 0,
    calls: 0,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    toolCalls: 0,
    toolCallsFailed: 0,
    toolFailures: new Map(),
    subtasks: new Map(),
    attempts: new Map(),
    plan: new Set(),
    errors: new Map(),
    teams: 0,
    verdicts: new Map(),
  };
}

/**
 * @param {RunFold} fold
 * @param {number} seq
 * @param {any} event
 * @returns {boolean} whether the event was new
 */
export function foldEvent(fold, seq, event) {
  if (seq <= fold.lastSeq) return false;
  fold.lastSeq = seq;
  fold.events += 1;
  fold.lastAt = Math.max(fold.lastAt, Number(event.at) || 0);
  switch (event.type) {
    case 'run-start':
    case 'run-resume':
      fold.status = 'running';
      break;
    case 'plan-chosen':
    case 'plan-update':
      fold.version = event.version;
      fold.plan = new Set();
      for (const subtask of event.workflow?.subtasks ?? []) {
        fold.plan.add(subtask.id);
        // The version says which subtasks still count as done (a changed one starts over); as the run summary does,
        // a running attempt keeps its status until it ends.
        const status = subtask.status ?? 'not started';
        // An attempt already started and not ended is running whatever the snapshot says: the snapshot was taken
        // when the version was made, and the attempt's own task-end (or a discard) settles it.
        const open = fold.attempts.get(subtask.id)?.some((bar) => bar.end === undefined) ?? false;
        if (open) fold.subtasks.set(subtask.id, 'in progress');
        else if (status !== 'in progress' || !fold.subtasks.has(subtask.id)) fold.subtasks.set(subtask.id, status);
        if (status !== 'failed') fold.errors.delete(subtask.id);
      }
      break;
    case 'task-start': {
      fold.subtasks.set(event.taskId, 'in progress');
      const bars = fold.attempts.get(event.taskId) ?? [];
      bars.push({ attempt: event.attempt, agent: event.agent, start: event.at });
      fold.attempts.set(event.taskId, bars);
      break;
    }
    case 'task-end': {
      const bar = fold.attempts
        .get(event.taskId)
        ?.find((candidate) => candidate.attempt === event.attempt && candidate.end === undefined);
      if (bar) {
        bar.end = event.at;
        bar.status = event.status;
        if (event.outcome) bar.outcome = event.outcome;
      }
      // A discarded attempt (the plan changed under it) says nothing about the subtask's own status.
      if (event.outcome !== 'discarded') fold.subtasks.set(event.taskId, event.status);
      if (event.outcome === 'discarded') break;
      if (event.status === 'failed') {
        const verdict = fold.verdicts.get(event.taskId);
        const why = event.error ? String(event.error) : verdict ? `the verifier answered ${verdict}` : 'failed';
        fold.errors.set(event.taskId, why);
      } else fold.errors.delete(event.taskId);
      break;
    }
    case 'task-verify': {
      if (event.verdict === 'accept') {
        fold.verdicts.delete(event.taskId);
        break;
      }
      const verdict = `${event.verdict}${event.reason ? `: ${event.reason}` : ''}`;
      const bar = fold.attempts.get(event.taskId)?.find((candidate) => candidate.attempt === event.attempt);
      if (bar && bar.end !== undefined) {
        bar.outcome = 'rejected';
        bar.verdict = event.verdict;
      }
      fold.verdicts.set(event.taskId, verdict);
      // The attempt ended but was sent back: not done. A retry's task-start or a new plan version says what next.
      if (fold.subtasks.get(event.taskId) === 'completed') {
        fold.subtasks.set(event.taskId, 'failed');
        fold.errors.set(event.taskId, `the verifier answered ${verdict}`);
      }
      break;
    }
    case 'team':
      fold.teams += 1;
      break;
    case 'tool-call':
      fold.toolCalls += 1;
      break;
    case 'tool-result':
      if (event.ok === false) {
        fold.toolCallsFailed += 1;
        fold.toolFailures.set(event.taskId, (fold.toolFailures.get(event.taskId) ?? 0) + 1);
        const bar = fold.attempts.get(event.taskId)?.find((candidate) => candidate.attempt === event.attempt);
        if (bar) bar.toolCallsFailed = (bar.toolCallsFailed ?? 0) + 1;
      }
      break;
    case 'model-call':
      fold.calls += 1;
      fold.inputTokens += event.inputTokens ?? 0;
      fold.outputTokens += event.outputTokens ?? 0;
      fold.costUsd += event.costUsd ?? 0;
      break;
    case 'run-end':
      fold.status = event.status;
      fold.reason = event.reason;
      break;
    default:
      break;
  }
  return true;
}

/**
 * The subtasks of the current plan that completed with failed tool calls, with how many failed.
 * @param {RunFold} fold
 * @returns {Map<string, number>}
 */
export function completedWithToolFailures(fold) {
  /** @type {Map<string, number>} */
  const marked = new Map();
  for (const id of fold.plan) {
    const failed = fold.toolFailures.get(id) ?? 0;
    if (failed > 0 && fold.subtasks.get(id) === 'completed') marked.set(id, failed);
  }
  return marked;
}

/** The statuses a subtask node can have, in the order the legend and the counts show them. */
export const STATUSES = /** @type {const} */ (['not started', 'in progress', 'completed', 'failed']);

/**
 * How many subtasks of the current plan are in each status (every status of STATUSES present, 0 when none).
 * @param {RunFold} fold
 * @returns {Map<string, number>}
 */
export function statusCounts(fold) {
  /** @type {Map<string, number>} */
  const counts = new Map(STATUSES.map((status) => [status, 0]));
  for (const id of fold.plan) {
    const status = fold.subtasks.get(id) ?? 'not started';
    counts.set(status, (counts.get(status) ?? 0) + 1);
  }
  return counts;
}
