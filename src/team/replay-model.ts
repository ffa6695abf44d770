/**
 * Replaying a recorded DyLAN run through Weft's team engine (docs/teams.md#replaying-recorded-runs): a ChatModel
 * that answers "agent i, round r of query q" with the reply the recording holds, a Ranker that replays the
 * reformation from the recording, and the agents and queries that go with them.
 *
 * Decisions:
 * - Calls are matched by their tag key (`answerKey`: agent, step, question), never by call order, so the replay
 *   gives the same text whether the engine runs a layer's calls together or one at a time, in any order.
 * - A call the recording has no reply for (`null`: the authors' run never made it) fails with a located
 *   SCRIPT_EXHAUSTED error (file, line = the query's line, field = agent and round); no text is made up.
 * - The recording holds no ranker text. The ranker is replayed by its effect: the agents that answered in round 3
 *   are the ones it kept (their code activates only kept agents after the ranker). It costs one call, as in their
 *   count. A rank call that reaches the model itself fails loudly.
 * - The questions and options are not in the recording: each query's question is a placeholder naming its
 *   subject and line, with four placeholder options A–D, so answers are read as option letters.
 * - `reading: 'authors'` reads each reply's answer with the authors' rule (`extractChoiceAsDylan`), so the
 *   engine's stops are decided on the answers the recorded run decided on; `reading: 'weft'` keeps Weft's own
 *   reading (`readAgentReply`). Ratings are read by Weft (`readAgentReply`) in both. Under the authors' reading a
 *   reply naming no option answers NO_OPTION_AS_DYLAN (see there).
 */
import type { ChatCall, ChatModel, ChatResult } from '../llm/chat-model.js';
import { WeftError } from '../errors.js';
import { extractChoiceAsDylan } from './extract-answer.js';
import { answerKey, createLlmAgent } from './llm-agent.js';
import type { Ranker } from './llm-ranker.js';
import { answeredIn, type DylanRecording, type RecordedQuery } from './replay-recording.js';
import type { TeamAgent, TeamQuery } from './team.js';

export type ReplayReading = 'authors' | 'weft';

/**
 * The answer of a reply that names no option, under the authors' reading. Their code compares two such replies
 * as agreeing (`None == None`) and can stop on that "consensus"; Weft's empty answer agrees with nothing. This
 * non-empty text agrees with itself and with no option letter, so the replay stops where their run stopped.
 */
export const NO_OPTION_AS_DYLAN = 'none (no option named)';

/** Where a call's reply lives in the recording. */
interface ReplySlot {
  readonly query: RecordedQuery;
  readonly agent: number;
  readonly round: number;
}

/** Agent names of a replay: the given roles, else `agent-1` … `agent-N`. Names must be distinct. */
export function replayAgentNames(recording: Pick<DylanRecording, 'agents'>, roles?: readonly string[]): string[] {
  const names = roles && roles.length === recording.agents ? [...roles] : [];
  if (names.length === 0 || new Set(names).size !== names.length)
    return Array.from({ length: recording.agents }, (_, index) => `agent-${index + 1}`);
  return names;
}

/** One query per recorded line; the question is a placeholder (the recording holds no question text). */
export function replayQueries(recording: Pick<DylanRecording, 'subject' | 'queries'>): TeamQuery[] {
  return recording.queries.map((query) => ({
    question: `MMLU ${recording.subject}, recorded query on line ${query.line} (the question text is not recorded)`,
    choices: ['A', 'B', 'C', 'D'].map((letter) => `option ${letter} (not recorded)`),
    kind: 'choice',
    taskType: 'mmlu',
  }));
}

/** A model that answers each agent's step of each query with the recorded reply. */
export function createReplayModel(recording: DylanRecording, names: readonly string[]): ChatModel {
  const queries = replayQueries(recording);
  const slots = new Map<string, ReplySlot>();
  recording.queries.forEach((query, index) => {
    names.forEach((name, agent) => {
      for (let round = 0; round < recording.rounds; round++)
        slots.set(answerKey(name, round + 1, queries[index]!), { query, agent, round });
    });
  });
  return {
    id: `replay:${recording.file}`,
    kind: 'scripted',
    async generate(call: ChatCall): Promise<ChatResult> {
      const tag = call.tag;
      if (tag?.purpose === 'rank')
        throw new WeftError(
          'SCRIPT_EXHAUSTED',
          `${recording.file}: the recording holds no ranker text; replay the ranker with createReplayRanker`,
          { location: { file: recording.file } },
        );
      const slot = tag?.key === undefined ? undefined : slots.get(tag.key);
      if (!slot)
        throw new WeftError(
          'SCRIPT_EXHAUSTED',
          `${recording.file}: no recorded call matches ${tag?.purpose ?? 'an untagged'} call ${JSON.stringify(tag?.key ?? '')}`,
          { location: { file: recording.file } },
        );
      const text = slot.query.replies[slot.agent]![slot.round] ?? null;
      if (text === null) throw missingReply(recording.file, slot, names);
      return { text, usage: { inputTokens: 0, outputTokens: 0 }, model: 'replay' };
    },
  };
}

/** The team's agents over a replay model, reading answers the way `reading` says. */
export function createReplayAgents(model: ChatModel, names: readonly string[], reading: ReplayReading): TeamAgent[] {
  return names.map((name) => {
    const agent = createLlmAgent({ name, prompt: `Agent ${name} of a recorded DyLAN run.`, model });
    if (reading === 'weft') return agent;
    return {
      name,
      kind: agent.kind,
      async respond(input, signal) {
        const response = await agent.respond(input, signal);
        // A recorded reply is free text, so `text` is the whole reply (llm-agent.ts passes it on unchanged).
        return { ...response, answer: extractChoiceAsDylan(response.text) || NO_OPTION_AS_DYLAN };
      },
    };
  });
}

/**
 * The reformation replayed from the recording: the agents that answered in round 3, in the team's order, then
 * the others (so a ranking that names too few is still visible as such to the engine).
 */
export function createReplayRanker(recording: DylanRecording, names: readonly string[]): Ranker {
  const queries = replayQueries(recording);
  const byQuestion = new Map(queries.map((query, index) => [query.question, recording.queries[index]!]));
  return {
    async rank(query, responses) {
      const recorded = byQuestion.get(query.question);
      if (!recorded)
        throw new WeftError('SCRIPT_EXHAUSTED', `${recording.file}: no recorded query matches the ranked question`, {
          location: { file: recording.file },
        });
      const kept = answeredIn(recorded, 2).map((agent) => names[agent]!);
      if (kept.length === 0)
        throw new WeftError(
          'SCRIPT_EXHAUSTED',
          `${recording.file}:${recorded.line}: the recording has no round-3 replies, so the authors' run never ranked this query`,
          { location: { file: recording.file, line: recorded.line, field: 'ranker' } },
        );
      const shown = new Set(responses.map((r) => r.agent));
      return {
        ranking: kept.filter((name) => shown.has(name)),
        calls: 1,
        fallback: false,
        reason: `replayed from the recording: ${kept.join(', ')} answered in round 3 (the ranker's own text is not recorded)`,
      };
    },
  };
}

function missingReply(file: string, slot: ReplySlot, names: readonly string[]): WeftError {
  const field = `agent ${slot.agent + 1} (${names[slot.agent]}) round ${slot.round + 1}`;
  return new WeftError(
    'SCRIPT_EXHAUSTED',
    `${file}:${slot.query.line} ${field}: the recording has no reply here (the authors' run did not make this call)`,
    { location: { file, line: slot.query.line, field } },
  );
}
