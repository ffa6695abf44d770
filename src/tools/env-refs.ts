/**
 * `${env:NAME}` references in a tools file: secrets (tokens, passwords) are named in the file and read
 * from the environment when the file is loaded. The resolved values are secrets: callers keep them out of
 * `source`, listings, logs and errors (they show the text with its references unresolved).
 */

/** A well-formed reference; NAME as shells allow it. */
const REFERENCE = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;
/** Anything that starts like a reference, to catch `${env:}`, `${env:A-B}`, `${ENV:X}` and unclosed ones. */
const OPENING = /\$\{\s*env\s*:/gi;

export type EnvResolution =
  | { readonly ok: true; readonly value: string; readonly secrets: readonly string[] }
  | { readonly ok: false; readonly problems: readonly string[] };

/** True when the text holds anything that looks like a reference (well-formed or not). */
export function hasEnvRefs(text: string): boolean {
  // Not OPENING.test: on a global regex it leaves lastIndex behind, and matchAll below starts from there.
  return text.search(OPENING) !== -1;
}

/**
 * The text with every `${env:NAME}` replaced by the variable's value. Problems name the variable, never a value:
 * an unset or empty variable, a malformed reference. `secrets` lists the values substituted.
 */
export function resolveEnvRefs(text: string, env: Readonly<Record<string, string | undefined>>): EnvResolution {
  const problems: string[] = [];
  const wellFormed = [...text.matchAll(REFERENCE)].length;
  const openings = [...text.matchAll(OPENING)].length;
  if (openings > wellFormed) {
    problems.push('a malformed ${env:NAME} reference (NAME: letters, digits and _, not starting with a digit)');
  }
  const secrets: string[] = [];
  const value = text.replace(REFERENCE, (_match, name: string) => {
    const found = Object.hasOwn(env, name) ? env[name] : undefined;
    if (found === undefined) problems.push(`environment variable ${name} is not set`);
    else if (found === '') problems.push(`environment variable ${name} is empty`);
    else secrets.push(found);
    return found ?? '';
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value, secrets };
}
