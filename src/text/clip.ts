/** `text` cut to `limit` characters with `…` after, for lines that show a value (logs, transcripts, tool results). */
export function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}…`;
}
