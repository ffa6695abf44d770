/**
 * What the sim bot reads in the bot's system prompt besides `<apis>` (bot-prompt.ts writes it), as a model would
 * read the text: the slots it may need (`- name (type): desc` under "Information you may need"), the procedure's
 * text (under "The procedure to follow", up to the `<apis>` block) and the controllers' notes for this step (under "Notes for this step"): which APIs the dependency controller says are
 * not available yet, which proposals were refused in this turn, and whether the conversation must close now.
 * Lenient and pure: a prompt without these sections gives no slots and no notes.
 */

export interface SimSlot {
  readonly name: string;
  /** As written in the prompt (`string`, `int`, `date`, …); '' when none. */
  readonly type: string;
  readonly desc: string;
}

export interface SimGuidance {
  /** APIs the controllers say may not be called yet. */
  readonly unavailable: ReadonlySet<string>;
  /**
   * APIs whose proposed call was refused earlier in this turn, each with the refused calls' arguments as the note
   * quotes them (JSON, cut at 200 characters; '' when the note quotes none).
   */
  readonly refused: ReadonlyMap<string, readonly string[]>;
  /** The conversation has reached its length limit: sum up and close in this reply. */
  readonly closeNow: boolean;
}

const PROCEDURE_HEADING = 'The procedure to follow:';
const SLOTS_HEADING = 'Information you may need from the user or from APIs:';
const NOTES_HEADING = "Notes for this step (from the procedure's controllers):";
const SLOT_LINE = /^- ([A-Za-z_][\w-]*)(?: \(([^)]*)\))?: (.*)$/;
const UNAVAILABLE_HEADING = /These APIs are not available yet[^\n]*:/;
const LISTED_API = /^- ([^\s(]+) \(/;
const REFUSED = /Your last proposal \(a call of ([^\s)]+)(?: with ([^\n]*?))?\) was refused/g;
const LENGTH_LIMIT = /has reached its limit of \d+ turns/;

/** The slot lines of the prompt's "Information you may need" section, in order. */
export function readPromptSlots(system: string): SimSlot[] {
  const section = sectionAfter(system, SLOTS_HEADING);
  if (section === undefined) return [];
  return section.split('\n').flatMap((line): SimSlot[] => {
    const match = SLOT_LINE.exec(line);
    return match ? [{ name: match[1]!, type: (match[2] ?? '').trim(), desc: match[3]!.trim() }] : [];
  });
}

/** The procedure's text ('' when the prompt has none); it may hold blank lines, so it ends where `<apis>` starts. */
export function readPromptProcedure(system: string): string {
  const at = system.indexOf(`${PROCEDURE_HEADING}\n`);
  if (at < 0) return '';
  const rest = system.slice(at + PROCEDURE_HEADING.length + 1);
  const end = rest.indexOf('\n\n<apis>');
  return end < 0 ? '' : rest.slice(0, end);
}

/** The controllers' notes of the prompt (the last section of the bot's prompt when there are any). */
export function readPromptGuidance(system: string): SimGuidance {
  const at = system.lastIndexOf(NOTES_HEADING);
  const notes = at < 0 ? '' : system.slice(at + NOTES_HEADING.length);
  const unavailable = new Set<string>();
  const heading = UNAVAILABLE_HEADING.exec(notes);
  if (heading) {
    for (const line of notes
      .slice(heading.index + heading[0].length)
      .split('\n')
      .slice(1)) {
      const listed = LISTED_API.exec(line);
      if (!listed) break;
      unavailable.add(listed[1]!);
    }
  }
  const refused = new Map<string, string[]>();
  for (const match of notes.matchAll(REFUSED)) {
    const calls = refused.get(match[1]!) ?? [];
    calls.push(match[2] ?? '');
    refused.set(match[1]!, calls);
  }
  return { unavailable, refused, closeNow: LENGTH_LIMIT.test(notes) };
}

/** The lines after a heading line up to the next blank line. */
function sectionAfter(text: string, heading: string): string | undefined {
  const at = text.indexOf(`${heading}\n`);
  if (at < 0) return undefined;
  const rest = text.slice(at + heading.length + 1);
  const end = rest.indexOf('\n\n');
  return end < 0 ? rest : rest.slice(0, end);
}
