// @ts-check
/**
 * The run page's live state, folded from the event stream in order: each subtask's status and attempts, and the
 * run's totals. The same events the CLI's progress view reads; a reconnect resumes after the last sequence, and an
 * event seen twice (sequence not above the last) is dropped.
 */

/**
 * @typedef {{ attempt: number, agent: string, start: number, end?: number, status?: string, outcome?: string }} AttemptBar
 * @typedef {{
 *   lastSeq: number, events: number, version: number, status: string, reason?: string, lastAt: number,
 *   calls: number, inputTokens: number, outputTokens: number, costUsd: number, toolCalls: number,
 *   subtasks: Map<string, string>, attempts: Map<string, AttemptBar[]>
 * }} RunFold
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
    subtasks: new Map(),
    attempts: new Map(),
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
      for (const subtask of event.workflow?.subtasks ?? [])
        if (!fold.subtasks.has(subtask.id)) fold.subtasks.set(subtask.id, 'not started');
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
      break;
    }
    case 'call':
      fold.calls += 1;
      fold.inputTokens += event.inputTokens ?? 0;
      fold.outputTokens += event.outputTokens ?? 0;
      fold.costUsd += event.costUsd ?? 0;
      break;
    case 'tool-call':
      fold.toolCalls += 1;
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
