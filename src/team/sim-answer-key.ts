/**
 * The `sim:` model's answer key (`sim:accuracy=0.7,answers=examples/teams/mc-sample.jsonl`): the gold answers of a
 * team dataset, read by the simulator itself so that sim teams can be right or wrong about real questions.
 *
 * Honesty: the key is a side channel of the simulation. The engines never see it and no prompt carries a gold
 * answer; the sim recognises a question by its text in the prompt (`Question:` block, team-prompts.ts), looks up
 * its gold answer here, and answers it right with probability `accuracy` (sim-team.ts). Every sim id names the
 * key file, so outputs say where the right answers came from. A question missing from the key falls back to the
 * literal `correct`.
 *
 * The file is a team dataset (JSONL `{question, choices?, answer}`; docs/teams.md); with `choices` the gold answer
 * is the option text its letter names, else the answer itself. Lines without an answer are skipped; other fields
 * are ignored.
 */
import { readFile } from 'node:fs/promises';
import { WeftError } from '../errors.js';
import { jsonLines } from '../text/json-lines.js';

/** Question text (whitespace-normalised) → the right answer as the sim gives it (an option's text, or the answer). */
export type SimAnswerKey = ReadonlyMap<string, string>;

export function simQuestionKey(question: string): string {
  return question.replace(/\s+/g, ' ').trim();
}

export async function loadSimAnswerKey(path: string): Promise<SimAnswerKey> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw keyError(
      path,
      undefined,
      `cannot read the sim answer key: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
      error,
    );
  }
  return parseSimAnswerKey(text, path);
}

export function parseSimAnswerKey(text: string, file: string): SimAnswerKey {
  const key = new Map<string, string>();
  for (const entry of jsonLines(text)) {
    if (!entry.ok) throw keyError(file, entry.line, `not JSON: ${entry.message}`);
    const record = entry.value as { question?: unknown; choices?: unknown; answer?: unknown } | null;
    const question = record?.question;
    const answer = record?.answer;
    if (typeof question !== 'string' || question.trim() === '')
      throw keyError(file, entry.line, 'a line needs a "question"');
    // Sample queries (`weft team optimize`) may leave the answer out: such a question is simply not in the key.
    if (answer === undefined || answer === null) continue;
    if (!(typeof answer === 'string' || typeof answer === 'number'))
      throw keyError(file, entry.line, `"answer" must be a string or a number`);
    const choices = Array.isArray(record?.choices) ? record.choices : undefined;
    let right = String(answer).trim();
    if (choices) {
      const letter = /^\(?([A-Za-z])\)?\.?$/.exec(right)?.[1];
      const option = letter === undefined ? undefined : choices[letter.toUpperCase().charCodeAt(0) - 65];
      if (typeof option !== 'string')
        throw keyError(
          file,
          entry.line,
          `the answer ${JSON.stringify(answer)} names none of the ${choices.length} choices`,
        );
      right = option.trim();
    }
    key.set(simQuestionKey(question), right);
  }
  return key;
}

function keyError(file: string, line: number | undefined, message: string, cause?: unknown): WeftError {
  return new WeftError('MODEL_SPEC', `bad sim option "answers": ${message}`, {
    location: { file, ...(line !== undefined ? { line } : {}), field: 'answers' },
    ...(cause !== undefined ? { cause } : {}),
  });
}
