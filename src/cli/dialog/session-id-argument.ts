/**
 * A session id given on the command line (`weft chat --session ID`, `weft show-session ID`). Ids are made by Weft
 * (`s-YYYYMMDD-HHMMSS-xxxxxxxx`); anything else is refused before the store is asked, and the message shows the
 * value clipped and inert, since it is echoed to a terminal (a pasted escape sequence, 10 KB of junk).
 */
import { inertText, WeftError } from '../../internal.js';

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function sessionIdArgument(value: string, field: string): string {
  if (SESSION_ID.test(value)) return value;
  const shown = inertText(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  throw new WeftError(
    'BAD_INPUT',
    `"${shown}" (${value.length} characters) is not a session id: ids look like s-20260101-120000-1a2b3c4d (see weft sessions)`,
    { location: { field } },
  );
}
