/**
 * Which traces of a task the summarizer gets (TRACE_SELECTIONS in stage-types.ts): `random_success` (the default)
 * one successful trace drawn with the seed, `all_success` every successful one, `all` every trace as given,
 * successful or not (the FlowMind paper's three rules), `first` the first trace as given, successful or not. Pure.
 */
import { WeftError } from '../errors.js';
import { pick, randomFrom } from '../llm/seeded-random.js';
import type { NewTrace } from '../store/traces.js';
import { TRACE_SELECTIONS, type TraceSelection } from './stage-types.js';

export function selectTraces<T extends NewTrace>(
  traces: readonly T[],
  selection: TraceSelection = 'random_success',
  seed = 1,
): T[] {
  if (!(TRACE_SELECTIONS as readonly string[]).includes(selection)) {
    throw new WeftError(
      'BAD_INPUT',
      `unknown trace selection "${String(selection)}" (one of ${TRACE_SELECTIONS.join(', ')})`,
      { location: { field: 'selection' } },
    );
  }
  if (traces.length === 0) {
    throw new WeftError('BAD_INPUT', 'no traces to summarize', { location: { field: 'traces' } });
  }
  if (selection === 'first') return [traces[0] as T];
  // Failed traces too: the summarizer sees what went wrong as well as what worked.
  if (selection === 'all') return [...traces];
  const successful = traces.filter((trace) => trace.success);
  if (successful.length === 0) {
    throw new WeftError(
      'BAD_INPUT',
      `${selection} needs a successful trace, and none of the ${traces.length} is (${traces
        .slice(0, 3)
        .map((trace) => `${trace.traceId}: ${trace.error ?? 'unsuccessful'}`)
        .join('; ')}); use --selection first or all to summarize unsuccessful ones`,
      { location: { field: 'selection' } },
    );
  }
  if (selection === 'all_success') return successful;
  // Seeded by the trace ids too, so the draw does not depend on the order they were given in.
  const ordered = [...successful].sort((a, b) => (a.traceId < b.traceId ? -1 : a.traceId > b.traceId ? 1 : 0));
  return [pick(randomFrom(seed, 'select-traces', ...ordered.map((trace) => trace.traceId)), ordered)];
}
