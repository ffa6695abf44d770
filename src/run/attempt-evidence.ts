/**
 * The verifier's evidence of one attempt (docs/algorithms.md#what-the-verifier-is-shown-of-tool-calls), built from
 * the same records the run's log keeps for its tool calls (`tool-call` with redacted arguments, `tool-result`), so
 * that a resumed run, whose calls are replayed from the log, and a queue worker, whose calls come from its journal,
 * show the verifier what an attempt run in one go shows it. Pure.
 */
import type { ToolEvidenceCall } from '../plan/tool-evidence.js';
import type { ToolLoopRecord } from '../tools/tool-loop.js';
import { type ToolEventRecord, toolCallRecord, toolResultRecord } from './run-tools.js';

/** The evidence of a tool loop's calls (made, or replayed from a log), in call order. */
export function attemptEvidence(taskId: string, attempt: number, calls: readonly ToolLoopRecord[]): ToolEvidenceCall[] {
  return evidenceOfRecords(
    calls.flatMap(({ call, outcome }) => [
      toolCallRecord(taskId, attempt, call),
      toolResultRecord(taskId, attempt, call, outcome),
    ]),
  );
}

/**
 * The evidence the tool records of one attempt hold, in call order: each `tool-call` with its `tool-result`. A call
 * without a result (the process died during it) is shown as failed, since nothing shows that it did its work.
 */
export function evidenceOfRecords(records: Iterable<ToolEventRecord>): ToolEvidenceCall[] {
  const calls = new Map<number, Extract<ToolEventRecord, { type: 'tool-call' }>>();
  const results = new Map<number, Extract<ToolEventRecord, { type: 'tool-result' }>>();
  for (const record of records) {
    if (record.type === 'tool-call') calls.set(record.sequence, record);
    else results.set(record.sequence, record);
  }
  return [...calls.values()]
    .sort((a, b) => a.sequence - b.sequence)
    .map((call): ToolEvidenceCall => {
      const end = results.get(call.sequence);
      const base = { sequence: call.sequence, name: call.name, args: call.args };
      if (!end) return { ...base, ok: false, error: 'no result recorded', code: 'TOOL' };
      return end.ok
        ? { ...base, ok: true, result: end.result ?? null, ...(end.truncated ? { truncated: true } : {}) }
        : { ...base, ok: false, error: end.error ?? 'failed', ...(end.code !== undefined ? { code: end.code } : {}) };
    });
}
