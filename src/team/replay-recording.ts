/**
 * A recorded DyLAN run on MMLU as the DyLAN authors' public code writes it (docs/teams.md#replaying-recorded-runs):
 * a `.json` file with one line per query — per agent, the reply of each round, `null` where no call was made — and
 * a `.txt` file beside it with the figures of the run. Pure: the texts come in, the recording comes out.
 *
 * The `.txt` lines, as the authors' script writes them:
 *   1. per query whether the final answer was right (a Python list of True/False), then the accuracy;
 *   2. the number of replies over all queries, then replies per query;
 *   3. per query the importance of every node (agent a at round r at index r·N + a), JSON;
 *   4. the mean of line 3 over the queries;
 *   5–6. prompt and completion tokens (not read).
 * The recording does not hold the questions, their options or the correct answers, nor the ranker's text.
 *
 * Decisions:
 * - A malformed line or field is a located error (file, line, field). A recording whose `.txt` disagrees with
 *   its `.json` (another number of queries, or a reply total its replies do not give) is read, with the
 *   disagreement in `issues`: such files exist in the published runs (a `.json` from another run than its
 *   `.txt`), and a comparison must leave them out visibly, not crash.
 * - The authors' reply count of a query is derived from the `.json`: its non-null replies, plus one for the
 *   ranker's call when the team has more than three agents and round 3 was reached (their code counts the
 *   ranker's call and runs it only for more than three agents). `issues` says when the sum is not line 2's.
 */
import { WeftError, type LocatedIssue } from '../errors.js';

/** The seven roles of the authors' seven-agent MMLU team, in the order of their script. */
export const DYLAN_MMLU_ROLES = Object.freeze([
  'Economist',
  'Doctor',
  'Lawyer',
  'Mathematician',
  'Psychologist',
  'Programmer',
  'Historian',
] as const);

/** Rounds of the authors' MMLU runs (their script builds every team with three). */
export const DYLAN_MMLU_ROUNDS = 3;

export interface RecordedQuery {
  /** 1-based line of the `.json` file. */
  readonly line: number;
  /** `replies[agent][round]`, `null` where the agent was not called. */
  readonly replies: readonly (readonly (string | null)[])[];
}

export interface RecordedFigures {
  readonly file: string;
  /** Per query: was the run's final answer right. */
  readonly correct: readonly boolean[];
  readonly accuracy: number;
  readonly totalReplies: number;
  readonly repliesPerQuery: number;
  /** Per query, 3·N node importances (agent a at round r: index r·N + a). */
  readonly importance: readonly (readonly number[])[];
  /** Mean of `importance` over the queries, 3·N values. */
  readonly meanImportance: readonly number[];
}

export interface DylanRecording {
  readonly file: string;
  /** The file name without the `_<N>3.json` ending, e.g. `abstract_algebra_test`. */
  readonly subject: string;
  readonly agents: number;
  readonly rounds: number;
  readonly queries: readonly RecordedQuery[];
  /** Absent when no `.txt` was given. */
  readonly figures?: RecordedFigures;
  /** Where `.json` and `.txt` disagree; empty for a consistent recording. */
  readonly issues: readonly LocatedIssue[];
}

/** Reads a recording's `.json` text (and its `.txt` text when given). */
export function parseDylanRecording(
  json: { readonly file: string; readonly text: string },
  txt?: { readonly file: string; readonly text: string },
): DylanRecording {
  const queries: RecordedQuery[] = [];
  let agents: number | undefined;
  json.text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw located(json.file, line, undefined, `is not JSON (${(error as Error).message})`);
    }
    const replies = repliesOf(value, json.file, line);
    if (agents === undefined) agents = replies.length;
    else if (replies.length !== agents)
      throw located(json.file, line, undefined, `has ${replies.length} agents; the lines before have ${agents}`);
    queries.push({ line, replies });
  });
  if (agents === undefined) throw located(json.file, undefined, undefined, 'holds no query');
  const rounds = Math.max(...queries.flatMap((q) => q.replies.map((r) => r.length)));
  const base = json.file
    .split(/[\\/]/)
    .at(-1)!
    .replace(/\.json$/i, '');
  const subject = base.replace(new RegExp(`_${agents}${rounds}$`), '');
  const recording = { file: json.file, subject, agents, rounds, queries };
  if (!txt) return { ...recording, issues: [] };
  const figures = parseFigures(txt.text, txt.file, agents, rounds);
  return { ...recording, figures, issues: consistencyIssues(recording, figures) };
}

/** The authors' count of replies for one query: its calls, plus the ranker's when it ran (see the header). */
export function recordedReplies(query: RecordedQuery, agents: number): number {
  const replies = query.replies.flat().filter((reply) => reply !== null).length;
  return replies + (rankerRan(query, agents) ? 1 : 0);
}

/** The ranker runs before round 3, only for teams of more than three agents. */
export function rankerRan(query: RecordedQuery, agents: number): boolean {
  return agents > 3 && query.replies.some((r) => (r[2] ?? null) !== null);
}

/** The agents (0-based) with a reply in `round` (0-based). */
export function answeredIn(query: RecordedQuery, round: number): number[] {
  return query.replies.flatMap((r, agent) => ((r[round] ?? null) !== null ? [agent] : []));
}

/**
 * The roles of an N-agent team chosen from the seven-agent team by the authors' team optimisation: the N roles
 * with the largest summed mean importance in the seven-agent run, largest first. The recordings do not name
 * their roles; this is an inference (the agents' replies mostly introduce themselves accordingly).
 */
export function topRoles(sevenAgentMeanImportance: readonly number[], n: number): string[] {
  const roles = DYLAN_MMLU_ROLES.length;
  const sums = DYLAN_MMLU_ROLES.map((_, agent) => {
    let sum = 0;
    for (let index = agent; index < sevenAgentMeanImportance.length; index += roles)
      sum += sevenAgentMeanImportance[index]!;
    return sum;
  });
  return DYLAN_MMLU_ROLES.map((role, agent) => ({ role, sum: sums[agent]! }))
    .sort((a, b) => b.sum - a.sum)
    .slice(0, n)
    .map((entry) => entry.role);
}

function repliesOf(value: unknown, file: string, line: number): (string | null)[][] {
  if (!Array.isArray(value) || value.length === 0)
    throw located(file, line, undefined, 'must be a list with one list of replies per agent');
  return value.map((rounds, agent) => {
    if (!Array.isArray(rounds) || rounds.length === 0)
      throw located(file, line, `[${agent}]`, 'must be a list of replies, one per round');
    return rounds.map((reply, round) => {
      if (reply !== null && typeof reply !== 'string')
        throw located(file, line, `[${agent}][${round}]`, 'must be a reply (text) or null');
      return reply as string | null;
    });
  });
}

function parseFigures(text: string, file: string, agents: number, rounds: number): RecordedFigures {
  const lines = text.split('\n');
  const need = (index: number, what: string): string => {
    const line = lines[index];
    if (line === undefined || line.trim() === '') throw located(file, index + 1, what, 'is missing');
    return line.trim();
  };
  const first = need(0, 'correctness');
  const listEnd = first.lastIndexOf(']');
  if (!first.startsWith('[') || listEnd < 0)
    throw located(file, 1, 'correctness', 'must be a list of True/False followed by the accuracy');
  const inner = first.slice(1, listEnd).trim();
  const correct =
    inner === ''
      ? []
      : inner.split(',').map((item, index) => {
          const word = item.trim();
          if (word !== 'True' && word !== 'False')
            throw located(file, 1, `correctness[${index}]`, `must be True or False, got ${JSON.stringify(word)}`);
          return word === 'True';
        });
  const accuracy = numberField(first.slice(listEnd + 1), file, 1, 'accuracy');
  const [total, perQuery] = need(1, 'replies').split(/\s+/);
  const totalReplies = numberField(total ?? '', file, 2, 'total replies');
  const repliesPerQuery = numberField(perQuery ?? '', file, 2, 'replies per query');
  const nodes = agents * rounds;
  const importance = numberRows(need(2, 'importance'), file, 3, 'importance', nodes);
  const [meanImportance] = numberRows(`[${need(3, 'mean importance')}]`, file, 4, 'mean importance', nodes);
  return { file, correct, accuracy, totalReplies, repliesPerQuery, importance, meanImportance: meanImportance! };
}

function numberRows(text: string, file: string, line: number, field: string, width: number): number[][] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw located(file, line, field, `is not JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(value)) throw located(file, line, field, 'must be a list of lists of numbers');
  return value.map((row, index) => {
    if (!Array.isArray(row) || row.length !== width || !row.every((x) => typeof x === 'number' && Number.isFinite(x)))
      throw located(file, line, `${field}[${index}]`, `must be a list of ${width} numbers`);
    return row as number[];
  });
}

function numberField(text: string, file: string, line: number, field: string): number {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(value))
    throw located(file, line, field, `must be a number, got ${JSON.stringify(text.trim())}`);
  return value;
}

function consistencyIssues(
  recording: Pick<DylanRecording, 'file' | 'agents' | 'queries'>,
  figures: RecordedFigures,
): LocatedIssue[] {
  const issues: LocatedIssue[] = [];
  const n = recording.queries.length;
  if (figures.correct.length !== n)
    issues.push({
      file: figures.file,
      line: 1,
      field: 'correctness',
      message: `has ${figures.correct.length} queries; ${recording.file} has ${n}`,
    });
  if (figures.importance.length !== figures.correct.length)
    issues.push({
      file: figures.file,
      line: 3,
      field: 'importance',
      message: `has ${figures.importance.length} rows for ${figures.correct.length} queries`,
    });
  const replies = recording.queries.reduce((sum, q) => sum + recordedReplies(q, recording.agents), 0);
  if (replies !== figures.totalReplies)
    issues.push({
      file: figures.file,
      line: 2,
      field: 'total replies',
      message: `is ${figures.totalReplies}; the replies of ${recording.file} give ${replies}`,
    });
  return issues;
}

function located(file: string, line: number | undefined, field: string | undefined, message: string): WeftError {
  const where = field === undefined ? `line ${line ?? '?'}` : `line ${line ?? '?'} ${field}`;
  return new WeftError('BAD_INPUT', `${file} ${where}: ${message}`, {
    location: { file, ...(line !== undefined ? { line } : {}), ...(field !== undefined ? { field } : {}) },
  });
}
