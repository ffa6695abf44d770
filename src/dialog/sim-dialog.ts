/**
 * The sim model's three roles in conversational procedures, chosen by the call's purpose: `converse`
 * the bot (sim-bot.ts, reading its prompt's slots and controllers' notes with sim-bot-prompt.ts), `simulate-user` the user (sim-user.ts), `judge` the judge (sim-judge.ts). Each reads the
 * tagged blocks of dialog-prompt-tags.ts: the bot's `<apis>` and the user's `<profile>`/`<oow>` from the system
 * prompt only (the messages are the other side's words), the judge's from the system prompt or else the last user
 * message that has them (put them after any transcript). A missing or malformed block gives a plain reply saying
 * so, never an error.
 *
 * Seeding: the bot's and user's draws come from `(seed, purpose, tag.key, tag.attempt, the number of messages, the
 * decision)`, so the same conversation gets the same move after a resume, and a retry after a controller's
 * rejection (another attempt) draws anew; the dialog layer should make the key the session id and turn. The
 * judge's from `(seed, judge, key, attempt, the blocks' content)` (sim-judge.ts). The three answer tools themselves
 * (the bot's calls follow the procedure, not `toolcalls`); `badjson` cuts a judge's JSON reply inside its first key.
 */
import type { ChatCall, ToolCallRequest } from '../llm/chat-model.js';
import { DIALOG_END_MARKER, DIALOG_TAGS } from './dialog-prompt-tags.js';
import { hashString, randomFrom, type RandomSource } from '../llm/seeded-random.js';
import { simBotMove } from './sim-bot.js';
import { readPromptGuidance, readPromptProcedure, readPromptSlots } from './sim-bot-prompt.js';
import { sideBranches } from './sim-procedure-branches.js';
import {
  promptBlock,
  readApiCalls,
  readApis,
  readGoals,
  readMove,
  readOow,
  readProfile,
  systemBlock,
} from './sim-dialog-blocks.js';
import type { SimOptions } from '../llm/sim-options.js';
import { simMaybeBadJson } from '../llm/sim-bad-json.js';
import type { SimResponder } from '../llm/sim-responders.js';
import { simSessionVerdict, simTurnVerdict, type JudgeStreams } from './sim-judge.js';
import { simUserReply } from './sim-user.js';
import { nextToolCallNumber, toolCallId } from '../llm/tool-call-ids.js';

export type SimDialogPurpose = 'converse' | 'simulate-user' | 'judge';

function dialogResponder(purpose: SimDialogPurpose): SimResponder {
  return {
    answersTools: true,
    respond: (context) => {
      const reply = simDialogReply(purpose, context.call, context.options);
      if (reply.toolCalls !== undefined) return reply;
      return purpose === 'judge' ? simMaybeBadJson(reply.text, context) : reply.text;
    },
  };
}

/** The conversation simulator's responders by purpose (src/sim-responders.ts registers them). */
export const dialogSimResponders: Readonly<Record<string, SimResponder>> = Object.freeze({
  converse: dialogResponder('converse'),
  'simulate-user': dialogResponder('simulate-user'),
  judge: dialogResponder('judge'),
});

export interface SimDialogReply {
  readonly text: string;
  readonly toolCalls?: readonly ToolCallRequest[];
}

export function simDialogReply(
  purpose: SimDialogPurpose,
  call: ChatCall,
  options: Pick<SimOptions, 'seed' | 'violate' | 'noise'>,
): SimDialogReply {
  const tag = call.tag;
  const stream = (name: string): RandomSource =>
    randomFrom(options.seed, purpose, tag?.key, tag?.attempt, call.messages.length, name);
  try {
    switch (purpose) {
      case 'converse':
        return botReply(call, options.violate, stream);
      case 'simulate-user':
        return userReply(call, stream);
      case 'judge':
        return { text: judgeReply(call, options, tag?.key, tag?.attempt) };
    }
  } catch (error) {
    // A block too deep to write back as JSON, and the like: an answer that says so rather than a failed call.
    if (!(error instanceof RangeError)) throw error;
    return { text: `sim ${purpose}: the prompt's blocks could not be read (${error.message})` };
  }
}

function botReply(call: ChatCall, violate: number, stream: (name: string) => RandomSource): SimDialogReply {
  const apis = readApis(systemBlock(call, DIALOG_TAGS.apis));
  if (apis === undefined) {
    return { text: "I'm sorry, I cannot help with that (sim bot: no readable <apis> block in the system prompt)." };
  }
  const tools = call.toolChoice === 'none' ? [] : (call.tools ?? []);
  const system = call.system ?? '';
  const prompt = {
    apis,
    slots: readPromptSlots(system),
    guidance: readPromptGuidance(system),
    branches: sideBranches(
      readPromptProcedure(system),
      apis.map((api) => api.name),
    ),
  };
  const move = simBotMove(prompt, tools, call.messages, violate, {
    violate: stream('violate'),
    api: stream('violate-api'),
    args: stream('violate-args'),
    heed: stream('heed'),
  });
  if (!move.toolCall) return { text: move.text };
  const id = toolCallId(nextToolCallNumber(call.messages));
  return { text: '', toolCalls: [{ id, ...move.toolCall }] };
}

function userReply(call: ChatCall, stream: (name: string) => RandomSource): SimDialogReply {
  const profile = readProfile(systemBlock(call, DIALOG_TAGS.profile));
  if (profile === undefined) {
    return { text: `(sim user: no readable <profile> block in the system prompt) ${DIALOG_END_MARKER}` };
  }
  const oow = readOow(systemBlock(call, DIALOG_TAGS.oow));
  return {
    text: simUserReply(profile, oow, call.messages, { choice: stream('choice'), detail: stream('detail') }),
  };
}

function judgeReply(
  call: ChatCall,
  options: Pick<SimOptions, 'seed' | 'noise'>,
  key: string | undefined,
  attempt: number | undefined,
): string {
  const streams: JudgeStreams = (content) => {
    const digest = hashString(content);
    return (index) => randomFrom(options.seed, 'judge', key, attempt, digest, 'noise', index);
  };
  const reference = readMove(promptBlock(call, DIALOG_TAGS.reference));
  const prediction = readMove(promptBlock(call, DIALOG_TAGS.prediction));
  if (reference && prediction) return JSON.stringify(simTurnVerdict(reference, prediction, options.noise, streams));
  const goals = readGoals(promptBlock(call, DIALOG_TAGS.goals));
  const calls = readApiCalls(promptBlock(call, DIALOG_TAGS.apiCalls));
  if (goals && calls) return JSON.stringify(simSessionVerdict(goals, calls, options.noise, streams));
  return 'sim judge: the prompt has no readable <goals> and <api-calls> blocks, nor <reference> and <prediction>.';
}
