/** The example procedures' profiles and reference sessions (examples/procedures) load and fit their procedures. */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadPdlFile } from '../../src/dialog/parse-pdl.js';
import { checkProfileApis, loadProfiles } from '../../src/dialog/profiles.js';
import { loadReferenceSessions } from '../../src/dialog/reference-sessions.js';
import { turnCases } from '../../src/dialog/turn-eval.js';

const ROOT = 'examples/procedures';
const names = readdirSync(ROOT, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

describe('example procedures', () => {
  it('there are six', () => expect(names.length).toBeGreaterThanOrEqual(6));

  it.each(names)('%s: profiles name its APIs; references have bot moves, OOW ones among them', async (name) => {
    const pdl = await loadPdlFile(`${ROOT}/${name}/${name}.pdl.yaml`);
    const profiles = await loadProfiles(`${ROOT}/${name}/profiles.jsonl`);
    expect(profiles.length).toBeGreaterThanOrEqual(5);
    checkProfileApis(profiles, pdl, `${name}/profiles.jsonl`);
    const references = await loadReferenceSessions(`${ROOT}/${name}/references.jsonl`);
    expect(references.length).toBeGreaterThanOrEqual(3);
    const apis = new Set(pdl.apis.map((api) => api.name));
    const cases = references.flatMap(turnCases);
    for (const item of cases) if (item.reference.kind === 'tool') expect(apis).toContain(item.reference.name);
    expect(cases.some((item) => item.oow !== undefined)).toBe(true);
  });
});
