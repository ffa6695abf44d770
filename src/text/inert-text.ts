/**
 * Text as a terminal may show it without acting on it: what a user typed, a model replied or a server returned can
 * carry escape sequences (clear the screen, rewrite the title, move the cursor, hide text) or bidirectional
 * overrides that make a line read differently from what it holds. Those characters are shown as `\uXXXX`; line
 * breaks and tabs stay.
 */
// C0 controls but tab and line feed, DEL, C1 controls, and the bidi embedding, override and isolate characters.
const ACTIVE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

export function inertText(text: string): string {
  return text.replace(ACTIVE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
