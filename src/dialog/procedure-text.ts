/** A procedure as a simulated API's model is told of it: its name and purpose, then the procedure text. */
import type { Pdl } from './pdl.js';

export function procedureText(pdl: Pick<Pdl, 'name' | 'desc' | 'detailedDesc' | 'procedure'>): string {
  return [`${pdl.name}: ${pdl.desc}`, ...(pdl.detailedDesc ? [pdl.detailedDesc] : []), pdl.procedure.trim()].join('\n');
}
