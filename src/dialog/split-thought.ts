/** A reply as `Thought: …` + `Response: …` (either optional): what the user reads, and the reasoning apart. */
export function splitThought(text: string): { readonly thought?: string; readonly response: string } {
  const trimmed = text.trim();
  const response = /(?:^|\n)\s*Response\s*:\s*/i.exec(trimmed);
  const thought = /^\s*Thought\s*:\s*/i.exec(trimmed);
  if (response) {
    const before = trimmed.slice(0, response.index);
    const after = trimmed.slice(response.index + response[0].length).trim();
    const reasoning = thought ? before.slice(thought[0].length).trim() : before.trim();
    return { ...(reasoning ? { thought: reasoning } : {}), response: after };
  }
  if (thought) {
    // Only a thought: its last paragraph is taken as the reply, rather than showing the user nothing.
    const body = trimmed.slice(thought[0].length);
    const split = body.lastIndexOf('\n\n');
    if (split > 0) return { thought: body.slice(0, split).trim(), response: body.slice(split).trim() };
    return { response: body.trim() };
  }
  return { response: trimmed };
}
