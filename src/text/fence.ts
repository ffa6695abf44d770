/** A Markdown code fence for `text`: longer than any run of backticks inside, so the text cannot close it. */
export function fenceFor(text: string): string {
  let longest = 0;
  for (const run of text.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}
