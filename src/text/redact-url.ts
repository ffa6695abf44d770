/**
 * Removing credentials from URLs before they are printed or stored: Postgres store URLs and model specs
 * (`openai-compatible:http://user:KEY@host/v1#m`) alike. Pure text in, text out.
 */

export interface RedactedUrl {
  /** The text with every URL password and secret query parameter removed. */
  readonly display: string;
  /** Texts that must never appear in a message (each secret, raw and decoded). */
  readonly secrets: readonly string[];
}

/** Query parameters that carry a secret: Postgres's `password`, and the keys and tokens some servers take. */
const SECRET_PARAMETER = /([?&](?:password|api[_-]?key|key|token|access[_-]?token|secret)=)([^&#\s]*)/gi;
/** `scheme://user:password@` anywhere in the text (a model spec has its provider before the URL). */
const USER_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]*):([^@/?#\s]*)@/gi;

/** Removes the password of every URL in `text` (user info, and secret query parameters become `***`). */
export function redactUrl(text: string): RedactedUrl {
  const secrets: string[] = [];
  const keep = (secret: string): void => {
    if (secret === '') return;
    secrets.push(secret);
    try {
      const decoded = decodeURIComponent(secret);
      if (decoded !== secret) secrets.push(decoded);
    } catch {
      // Not percent-encoded text; the raw form is already listed.
    }
  };
  let display = text.replace(USER_PASSWORD, (_match, head: string, password: string) => {
    keep(password);
    return `${head}@`;
  });
  display = display.replace(SECRET_PARAMETER, (_match, head: string, secret: string) => {
    keep(secret);
    return `${head}***`;
  });
  return { display, secrets };
}

/**
 * Whether a text that went through redactUrl may have lost a credential: it holds a URL user (whose password may
 * have been removed) or a secret parameter shown as `***`. A stored model spec like that cannot be used as it is.
 */
export function mayHaveRedactedCredentials(display: string): boolean {
  return /[a-z][a-z0-9+.-]*:\/\/[^/?#@\s]+@/i.test(display) || /[?&][^=&#\s]+=\*\*\*/.test(display);
}

/** `text` with each secret replaced by `***` (or `replacement`). */
export function scrubSecrets(text: string, secrets: readonly string[], replacement = '***'): string {
  let result = text;
  // Longest first, so a secret containing another is removed whole.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length))
    result = result.split(secret).join(replacement);
  return result;
}
