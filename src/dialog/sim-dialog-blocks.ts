/**
 * The tagged blocks of dialog prompts (dialog-prompt-tags.ts) as the sim reads them: leniently (entries that do not
 * fit are left out, missing lists are empty) but never trusting a shape, so a block a prompt got wrong gives
 * `undefined` and the sim answers plainly instead of throwing.
 */
import type { ChatCall } from '../llm/chat-model.js';
import {
  type DialogApiCallSpec,
  type DialogApiSpec,
  type DialogConditionSpec,
  type DialogGoalSpec,
  type DialogMoveSpec,
  type DialogOowSpec,
  type DialogProfileSpec,
  readDialogBlock,
} from './dialog-prompt-tags.js';

/**
 * A block of the system prompt only: in a bot's or user model's call the messages are the other side's words, which
 * must not be able to pass for a block.
 */
export function systemBlock(call: ChatCall, name: string): unknown {
  return readDialogBlock(call.system ?? '', name);
}

/** A block of the system prompt, else the last one in the user messages (a judge's prompt may carry them there). */
export function promptBlock(call: ChatCall, name: string): unknown {
  const fromSystem = systemBlock(call, name);
  if (fromSystem !== undefined) return fromSystem;
  for (let index = call.messages.length - 1; index >= 0; index--) {
    const message = call.messages[index]!;
    if (message.role !== 'user') continue;
    const value = readDialogBlock(message.content, name);
    if (value !== undefined) return value;
  }
  return undefined;
}

export function readApis(value: unknown): DialogApiSpec[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter(isRecord).flatMap((entry) =>
    typeof entry['name'] === 'string'
      ? [
          {
            name: entry['name'],
            request: strings(entry['request']),
            response: strings(entry['response']),
            precondition: strings(entry['precondition']),
            ...(Array.isArray(entry['conditions']) ? { conditions: readConditions(entry['conditions']) } : {}),
          },
        ]
      : [],
  );
}

const OPERATORS: readonly unknown[] = ['==', '!=', '<', '<=', '>', '>='];

/** Conditions of an `<apis>` entry; one that does not fit is left out. */
function readConditions(value: readonly unknown[]): DialogConditionSpec[] {
  return value.filter(isRecord).flatMap((entry): DialogConditionSpec[] => {
    const { api, field, op, value: expected } = entry;
    const scalar =
      expected === null || ['string', 'number', 'boolean'].includes(typeof expected)
        ? (expected as DialogConditionSpec['value'])
        : undefined;
    if (typeof api !== 'string' || !Array.isArray(field) || !OPERATORS.includes(op) || scalar === undefined) return [];
    return [{ api, field: strings(field), op: op as DialogConditionSpec['op'], value: scalar }];
  });
}

export function readProfile(value: unknown): DialogProfileSpec | undefined {
  if (!isRecord(value)) return undefined;
  return {
    id: text(value['id']),
    persona: text(value['persona']),
    details: isRecord(value['details']) ? value['details'] : {},
    needs: strings(value['needs']),
    style: text(value['style']),
    pattern: text(value['pattern']),
    ...(value['inventsDetails'] === true ? { inventsDetails: true } : {}),
  };
}

export function readOow(value: unknown): DialogOowSpec | undefined {
  if (!isRecord(value)) return undefined;
  const category = value['category'];
  if (typeof category !== 'string' || category === '') return undefined;
  const subtype = value['subtype'];
  return {
    category,
    ...(typeof subtype === 'string' && subtype !== '' ? { subtype } : {}),
    instruction: text(value['instruction']),
  };
}

export function readGoals(value: unknown): DialogGoalSpec[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.flatMap((entry): DialogGoalSpec[] => {
    if (typeof entry === 'string') return [{ goal: entry }];
    if (!isRecord(entry)) return [];
    return [{ goal: text(entry['goal']), ...(Array.isArray(entry['apis']) ? { apis: strings(entry['apis']) } : {}) }];
  });
}

export function readApiCalls(value: unknown): DialogApiCallSpec[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value
    .filter(isRecord)
    .flatMap((entry) =>
      typeof entry['name'] === 'string' && typeof entry['ok'] === 'boolean'
        ? [{ name: entry['name'], ok: entry['ok'] }]
        : [],
    );
}

export function readMove(value: unknown): DialogMoveSpec | undefined {
  if (!isRecord(value)) return undefined;
  if (value['kind'] === 'tool' && typeof value['name'] === 'string') {
    return { kind: 'tool', name: value['name'], args: value['args'] };
  }
  if (value['kind'] === 'reply') return { kind: 'reply', text: text(value['text']) };
  return undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
