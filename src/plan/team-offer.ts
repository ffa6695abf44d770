/**
 * Agent teams offered to the planner (`weft run <task> --team file`): the planner may use a team's name as a
 * subtask's agent, and that subtask then runs through the team (team/team-attempt.ts). The team file is the
 * user's: a model never chooses a file path, and a role of kind `team` that the planner invents is not honoured.
 */
import { WeftError } from '../errors.js';

export interface TeamOffer {
  /** The team's name (its file's `name`): the agent name the planner uses. */
  readonly name: string;
  /** The team file, absolute, so that the plan runs the same from any folder. */
  readonly file: string;
  /** What the team is good for, shown to the planner and used as the role's prompt. */
  readonly description: string;
}

/** Checks that offers can be told apart by name (the planner only has names to go by). */
export function checkTeamOffers(offers: readonly TeamOffer[]): void {
  const seen = new Map<string, string>();
  for (const offer of offers) {
    const first = seen.get(offer.name);
    if (first !== undefined) {
      throw new WeftError(
        'BAD_INPUT',
        `Two teams offered to the planner are both named "${offer.name}" (${first} and ${offer.file}); rename one`,
        {
          location: { file: offer.file, field: 'name' },
        },
      );
    }
    seen.set(offer.name, offer.file);
  }
}

/** The planner prompt's section listing the teams, or '' without any. */
export function teamsPromptSection(offers: readonly TeamOffer[]): string {
  if (offers.length === 0) return '';
  const lines = offers.map((offer) => `- ${offer.name}: ${offer.description.replace(/\s+/g, ' ')}`);
  return `<teams>\n${lines.join('\n')}\n</teams>\n\nBesides the roles you define, you may give a subtask to one of these agent teams by using the team's name as its agent (do not declare it as a role). A team answers by several agents debating until they agree, at several times the cost of one agent: use one only for a subtask whose answer must be carefully checked (a hard question, code that must be right).`;
}
