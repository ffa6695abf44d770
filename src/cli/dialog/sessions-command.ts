/**
 * `weft sessions` and `weft show-session ID`: the conversations kept in the store, and one as a
 * transcript with its tool calls and controller verdicts. An open session whose chat process is still running on
 * this host is shown `active`. Reading never creates a store.
 */
import {
  formatTranscriptEntry,
  inertText,
  ownerState,
  readSessionEvents,
  type SessionRecord,
  sessionStoreOf,
  transcriptOf,
  WeftError,
} from '../../internal.js';
import { loadContext, openExistingStore, storePlace } from '../context.js';
import { inListOrder } from '../list-order.js';
import type { Output } from '../output.js';
import { sessionIdArgument } from './session-id-argument.js';

interface SessionsFlags {
  readonly oldestFirst?: boolean;
  readonly home?: string;
  readonly store?: string;
  readonly json?: boolean;
}

function shownStatus(session: SessionRecord): 'open' | 'active' | 'ended' {
  if (session.status === 'ended') return 'ended';
  return ownerState(session.owner) === 'alive' && session.owner?.pid !== process.pid ? 'active' : 'open';
}

export async function sessionsCommand(flags: SessionsFlags, output: Output): Promise<number> {
  const context = await loadContext(flags);
  const runStore = await openExistingStore(context);
  try {
    const sessions = inListOrder(runStore ? await sessionStoreOf(runStore).listSessions() : [], flags.oldestFirst);
    const rows = sessions.map((session) => ({
      sessionId: session.sessionId,
      procedure: session.procedure,
      status: shownStatus(session),
      turns: session.turns,
      model: session.model,
      createdAt: session.createdAt,
      updatedAt: session.updatedAt,
    }));
    if (output.json) {
      output.document({ sessions: rows });
      return 0;
    }
    if (rows.length === 0) output.text(`no sessions in ${storePlace(context)}`);
    for (const row of rows) {
      output.text(
        inertText(
          `${row.sessionId}  ${row.status.padEnd(6)} ${String(row.turns).padStart(3)} turns  ${row.createdAt}  ${row.procedure}`,
        ),
      );
    }
    return 0;
  } finally {
    await runStore?.close();
  }
}

export async function showSessionCommand(
  sessionId: string,
  flags: SessionsFlags & { readonly verbose?: boolean },
  output: Output,
): Promise<number> {
  sessionIdArgument(sessionId, '<sessionId>');
  const context = await loadContext(flags);
  const runStore = await openExistingStore(context);
  try {
    const store = runStore ? sessionStoreOf(runStore) : undefined;
    const session = store ? await store.getSession(sessionId) : undefined;
    if (!store || !session) {
      throw new WeftError('NOT_FOUND', `No session "${sessionId}" in ${storePlace(context)} (see \`weft sessions\`)`, {
        location: { field: '<sessionId>' },
      });
    }
    // Checked as it is read: a hand-edited or newer log is a STORE error naming the session and position.
    const events = await readSessionEvents(store, sessionId);
    const transcript = transcriptOf(events);
    const start = events.find((event) => event.type === 'session-start');
    const modelKind = start?.type === 'session-start' ? start.modelKind : undefined;
    const simulated =
      start?.type === 'session-start' && start.simulatedApis?.length
        ? { simulatedApis: start.simulatedApis, apiModel: start.apiModel ?? session.model }
        : undefined;
    if (output.json) {
      output.document({
        sessionId,
        procedure: session.procedure,
        pdlPath: session.pdlPath,
        model: session.model,
        ...(modelKind ? { modelKind } : {}),
        ...(simulated ?? {}),
        status: shownStatus(session),
        turns: session.turns,
        createdAt: session.createdAt,
        updatedAt: session.updatedAt,
        transcript: transcript.entries,
        totals: transcript.totals,
      });
      return 0;
    }
    output.text(inertText(`session ${sessionId} — ${session.procedure} (${shownStatus(session)})`));
    output.text(
      inertText(
        `model ${session.model}${modelKind && modelKind !== 'real' ? ` (${modelKind})` : ''}, started ${session.createdAt}`,
      ),
    );
    if (simulated)
      output.text(
        inertText(
          `simulated APIs (answered by ${simulated.apiModel}, not by the APIs): ${simulated.simulatedApis.join(', ')}`,
        ),
      );
    output.text('');
    for (const entry of transcript.entries) {
      const line = formatTranscriptEntry(entry, flags.verbose === true);
      if (line !== undefined) output.text(line);
    }
    const totals = transcript.totals;
    output.text('');
    output.text(
      `${totals.turns} turns, ${totals.toolCalls} API calls (${totals.failedToolCalls} failed${totals.simulatedToolCalls > 0 ? `, ${totals.simulatedToolCalls} simulated: answered by a model, not the API` : ''}), ${totals.rejections} refused by controllers, ${totals.violationsExecuted} executed without their preconditions; ${totals.modelCalls} model calls, ${totals.inputTokens + totals.outputTokens} tokens, $${totals.costUsd.toFixed(4)}`,
    );
    return 0;
  } finally {
    await runStore?.close();
  }
}
