/**
 * The regex engine JSONata is given (its `RegexEngine` option): a JSONata regex literal (`/(a+)+$/` in `$match`,
 * `$replace`, `$contains`, `$split`) runs on RE2 (re2js), in time linear in the text, instead of V8's backtracking
 * engine, on which 32 characters can take minutes. A regex RE2 cannot run (a backreference, a lookaround) is refused
 * with an error; JSONata reports it at the expression, which the interpreter locates by node and field.
 */
import { RE2JS } from 're2js';

const compiled = new Map<string, RE2JS>();

/** The RE2 form of a JavaScript regex, cached by source and flags; throws a plain Error RE2 cannot run it. */
function re2Of(regex: RegExp): RE2JS {
  const key = `${regex.flags}/${regex.source}`;
  let found = compiled.get(key);
  if (found) return found;
  // JSONata regex literals take the flags i and m only.
  const flags = (regex.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0) | (regex.multiline ? RE2JS.MULTILINE : 0);
  try {
    found = RE2JS.compile(regex.source, flags);
  } catch (error) {
    throw new Error(
      `the regex /${regex.source}/ is not supported: regexes run on a linear-time engine (RE2), which has no backreferences or lookarounds (${(error as Error).message})`,
    );
  }
  if (compiled.size > 1_000) compiled.clear();
  compiled.set(key, found);
  return found;
}

/** What JSONata reads of a match: `match[0]`, the groups, `index`. */
type Match = string[] & { index: number };

/**
 * The part of RegExp that JSONata uses: `new RegexEngine(regex)`, `lastIndex`, `exec(text)` (a global regex's
 * exec, from `lastIndex` on).
 */
export class LinearRegex {
  lastIndex = 0;
  private readonly re2: RE2JS;

  constructor(regex: RegExp) {
    this.re2 = re2Of(regex);
  }

  exec(text: string): Match | null {
    if (this.lastIndex > text.length) {
      this.lastIndex = 0;
      return null;
    }
    const matcher = this.re2.matcher(text);
    if (!matcher.find(this.lastIndex)) {
      this.lastIndex = 0;
      return null;
    }
    const groups = matcher.groupCount();
    const match = [] as unknown as Match;
    // A group that took no part in the match is undefined, as RegExp gives it.
    for (let group = 0; group <= groups; group++) match.push(matcher.group(group) ?? (undefined as unknown as string));
    match.index = matcher.start();
    this.lastIndex = matcher.end();
    return match;
  }
}
