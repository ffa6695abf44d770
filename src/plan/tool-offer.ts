/**
 * Tools offered to the planner (`weft run <task> --tools file`): it may list tools by name in a role's `tools`, and
 * subtasks of that role then run a bounded tool loop with them. The planner sees names and descriptions only; a
 * tool it names that was not offered makes the answer invalid (re-prompted with the exact error).
 */
import type { z } from 'zod';
import type { PlanAnswer } from './plan-schemas.js';

export interface ToolOffer {
  readonly name: string;
  readonly description: string;
}

/** Descriptions longer than this are cut in the prompt: the planner needs the gist, the agent gets the whole. */
const MAX_DESCRIPTION = 300;

/** The planner prompt's section listing the tools, or '' without any. */
export function toolsPromptSection(offers: readonly ToolOffer[]): string {
  if (offers.length === 0) return '';
  const lines = offers.map((offer) => {
    const description = offer.description.replace(/\s+/g, ' ').trim();
    const shown = description.length > MAX_DESCRIPTION ? `${description.slice(0, MAX_DESCRIPTION)}…` : description;
    return `- ${offer.name}: ${shown}`;
  });
  return `<tools>\n${lines.join('\n')}\n</tools>\n\nA role may be given some of these tools by name ("tools": ["name", ...] in the role): its agent then calls them while it works (to look data up or act on a system). Give a role only the tools its subtasks need; a role without tools only writes text.`;
}

/** Adds to a plan-answer schema the rule that roles name only offered tools. */
export function withOfferedTools<S extends z.ZodType<PlanAnswer>>(schema: S, offers: readonly ToolOffer[]) {
  const known = new Set(offers.map((offer) => offer.name));
  const listing = offers.length > 0 ? offers.map((offer) => offer.name).join(', ') : 'none';
  return schema.superRefine((answer, context) => {
    (answer.roles ?? []).forEach((role, roleIndex) => {
      (role.tools ?? []).forEach((tool, toolIndex) => {
        if (!known.has(tool)) {
          context.addIssue({
            code: 'custom',
            path: ['roles', roleIndex, 'tools', toolIndex],
            message: `unknown tool "${tool}"; the tools are: ${listing}`,
          });
        }
      });
    });
  });
}
