/**
 * A run log's event under today's name (docs/contracts.md, "Events"). Earlier versions wrote a model call as
 * `call` (now `model-call`, as in a conversation's log) and both a spent budget and the run's closing tally as
 * `budget` (now `budget-stop`, which has `exceeded`, and `usage`, which does not). Stores keep what was written;
 * every read of a run's log passes its events through here, so old logs resume, show and fold as new ones do.
 * Anything else, including what is not an event at all, passes through unchanged for the typed read to judge.
 */
export function upgradeRunEvent<T>(event: T): T {
  if (typeof event !== 'object' || event === null) return event;
  const { type } = event as { type?: unknown };
  if (type === 'call') return { ...event, type: 'model-call' };
  if (type === 'budget') {
    const exceeded = (event as { exceeded?: unknown }).exceeded;
    return { ...event, type: exceeded === undefined ? 'usage' : 'budget-stop' };
  }
  return event;
}
