/**
 * The procedure text of a PDL file (Python-like pseudocode mixed with prose) scanned for what it names:
 * every call `API.x(...)`, `API_x(...)`, `ANSWER.y(...)`, `ANSWER_y(...)` (and a bare `x(...)` when `x` is a known
 * API or answer, as the paper's own examples write), with the names assigned from it and passed to it, and every
 * name the procedure assigns. Pure; offsets are into the text given, the caller maps them into its file.
 *
 * Not a parser of Python: pseudocode is not valid Python. Comments (`# …`) and string literals are blanked first, so
 * prose in comments names nothing and `'hospital'` is no variable.
 */

export interface ScannedReference {
  readonly kind: 'api' | 'answer';
  readonly name: string;
  /** Where the call's head (`API.x`, `ANSWER_y`, `x`) starts in the text. */
  readonly offset: number;
  /** The head as written, e.g. `API.check_hospital`: found again in the file's raw text to locate it. */
  readonly head: string;
  /** `[a, b] = API.x(...)`, `a, b = …`, `a = …`: a and b. */
  readonly outputs: readonly string[];
  /** Identifiers between the parentheses: `API.x([p, q])`, `API.x(p, q)` and `API.x(p=q)` give p and q. */
  readonly inputs: readonly string[];
}

export interface ScannedAssignment {
  readonly name: string;
  readonly offset: number;
}

export interface ProcedureScan {
  readonly references: readonly ScannedReference[];
  /** Every name assigned (`x = …`, `[a, b] = …`, `for x in …`), in order. */
  readonly assignments: readonly ScannedAssignment[];
}

export interface ScanProcedureOptions {
  /** Known API names: a bare call of one counts as an API call. */
  readonly apiNames?: ReadonlySet<string>;
  readonly answerNames?: ReadonlySet<string>;
}

/** Words that are syntax or literals, never a parameter's name. */
const NOT_NAMES = new Set([
  'and',
  'or',
  'not',
  'in',
  'is',
  'if',
  'elif',
  'else',
  'for',
  'while',
  'lambda',
  'None',
  'True',
  'False',
  'none',
  'true',
  'false',
  'null',
  'API',
  'ANSWER',
]);

/** An argument list longer than this is unbalanced text, not a call: the scan takes the rest of the line instead. */
const MAX_ARGUMENT_CHARS = 5_000;

const HEAD = /(?<![\w$.])(?:(API|ANSWER)[._])?([A-Za-z_]\w*)[ \t]*\(/g;
const IDENTIFIER = /(?<![\w$.])([A-Za-z_]\w*)\b(?![ \t]*\()/g;
const FOR_TARGETS = /\bfor[ \t]+([A-Za-z_]\w*(?:[ \t]*,[ \t]*[A-Za-z_]\w*)*)[ \t]+in\b/g;
const NAME = /[A-Za-z_]\w*/g;

export function scanProcedure(text: string, options: ScanProcedureOptions = {}): ProcedureScan {
  const code = blankCommentsAndStrings(text);
  const references: ScannedReference[] = [];
  for (const match of code.matchAll(HEAD)) {
    const [whole, prefix, name] = match as unknown as [string, string | undefined, string];
    const offset = match.index;
    let kind: 'api' | 'answer' | undefined;
    if (prefix === 'API') kind = 'api';
    else if (prefix === 'ANSWER') kind = 'answer';
    else if (options.apiNames?.has(name)) kind = 'api';
    else if (options.answerNames?.has(name)) kind = 'answer';
    if (kind === undefined) continue;
    const open = offset + whole.length - 1;
    const head = prefix === undefined ? name : text.slice(offset, offset + prefix.length + 1 + name.length);
    references.push({
      kind,
      name,
      offset,
      head,
      outputs: assignedFrom(code, offset),
      inputs: argumentNames(code, open),
    });
  }
  return { references, assignments: assignments(code) };
}

/**
 * The text with comments and string literals replaced by spaces (newlines kept), so offsets stay the same.
 * Strings end at their line's end unless triple-quoted; `\` escapes the next character.
 */
export function blankCommentsAndStrings(text: string): string {
  const out = text.split('');
  let index = 0;
  const blank = (from: number, to: number) => {
    for (let at = from; at < to; at++) if (out[at] !== '\n') out[at] = ' ';
  };
  while (index < text.length) {
    const char = text[index];
    if (char === '#') {
      const end = text.indexOf('\n', index);
      const stop = end === -1 ? text.length : end;
      blank(index, stop);
      index = stop;
    } else if ((char === '"' || char === "'") && !/[A-Za-z0-9]/.test(text[index - 1] ?? '')) {
      // A quote after a letter is an apostrophe in prose (`the user's order`), not a string.
      const triple = text.startsWith(char.repeat(3), index);
      let at = index + (triple ? 3 : 1);
      while (at < text.length) {
        const c = text[at];
        if (c === '\\') at += 2;
        else if (triple ? text.startsWith(char.repeat(3), at) : c === char) {
          at += triple ? 3 : 1;
          break;
        } else if (c === '\n' && !triple) break;
        else at++;
      }
      const stop = Math.min(at, text.length);
      blank(index, stop);
      index = stop;
    } else {
      index++;
    }
  }
  return out.join('');
}

/** `[a, b] = ` right before the call's head, on its line: a and b. */
function assignedFrom(code: string, headOffset: number): string[] {
  let at = headOffset - 1;
  while (code[at] === ' ' || code[at] === '\t') at--;
  if (!isAssignmentSign(code, at)) return [];
  return (targetsBefore(code, at) ?? []).map((target) => target.name);
}

/** Whether the `=` at `at` assigns (not `==`, `!=`, `<=`, `>=`, `=>`). */
function isAssignmentSign(code: string, at: number): boolean {
  return code[at] === '=' && !'=!<>'.includes(code[at - 1] ?? ' ') && code[at + 1] !== '=' && code[at + 1] !== '>';
}

/**
 * The names assigned by the `=` at `sign`: `a`, `a, b`, `[a, b]`, `(a, b,)`, standing at the line's start or after
 * `:` or `;`. Read backwards by hand, each stretch of text by one `=` at most: a regular expression for it
 * backtracks for ever on long blank runs.
 */
function targetsBefore(code: string, sign: number): ScannedAssignment[] | undefined {
  let at = sign - 1;
  const blanks = () => {
    while (code[at] === ' ' || code[at] === '\t') at--;
  };
  blanks();
  const bracketed = code[at] === ']' || code[at] === ')';
  if (bracketed) {
    at--;
    blanks();
  }
  if (code[at] === ',') {
    at--;
    blanks();
  }
  const targets: ScannedAssignment[] = [];
  for (;;) {
    const end = at + 1;
    while (at >= 0 && /\w/.test(code[at] ?? '')) at--;
    const name = code.slice(at + 1, end);
    if (!/^[A-Za-z_]\w*$/.test(name)) return undefined;
    targets.unshift({ name, offset: at + 1 });
    blanks();
    if (code[at] !== ',') break;
    at--;
    blanks();
  }
  if (bracketed) {
    if (code[at] !== '[' && code[at] !== '(') return undefined;
    at--;
    blanks();
  }
  if (at >= 0 && !'\n;:'.includes(code[at] ?? '')) return undefined;
  return targets.filter((target) => !NOT_NAMES.has(target.name));
}

/** Identifiers between the `(` at `open` and its `)` (or the line's end when it has none nearby). */
function argumentNames(code: string, open: number): string[] {
  let depth = 0;
  let end = open;
  const limit = Math.min(code.length, open + MAX_ARGUMENT_CHARS);
  for (; end < limit; end++) {
    const char = code[end];
    if (char === '(' || char === '[' || char === '{') depth++;
    else if (char === ')' || char === ']' || char === '}') {
      depth--;
      if (depth === 0) break;
    }
  }
  if (depth !== 0) {
    const lineEnd = code.indexOf('\n', open);
    end = lineEnd === -1 ? code.length : lineEnd;
  }
  const names: string[] = [];
  for (const match of code.slice(open + 1, end).matchAll(IDENTIFIER)) {
    const name = match[1] ?? '';
    if (!NOT_NAMES.has(name) && !names.includes(name)) names.push(name);
  }
  return names;
}

function assignments(code: string): ScannedAssignment[] {
  const found: ScannedAssignment[] = [];
  for (let sign = code.indexOf('='); sign !== -1; sign = code.indexOf('=', sign + 1)) {
    if (isAssignmentSign(code, sign)) found.push(...(targetsBefore(code, sign) ?? []));
  }
  for (const match of code.matchAll(FOR_TARGETS)) {
    const targets = match[1] ?? '';
    const start = match.index + match[0].indexOf(targets, 3);
    for (const name of targets.matchAll(NAME)) {
      if (!NOT_NAMES.has(name[0])) found.push({ name: name[0], offset: start + name.index });
    }
  }
  return found.sort((a, b) => a.offset - b.offset);
}
