/**
 * examples/procedures stays true to the business API it is bound to: every procedure's APIs are tools of its tools
 * file with the same parameters, profiles speak in the procedure's slot names, and every reference session's tool
 * calls, replayed in order against a fresh real server, return what the session recorded — without one call
 * refused for a skipped precondition (the server's violation count stays 0), as a controller-respected
 * conversation must.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type BusinessApi, startBusinessApi } from '../../examples/business-api/business-api.js';
import {
  isToolMessage,
  PROCEDURE_TOOLS,
  PROCEDURES_DIR,
  type ReferenceSession,
  readJsonLines,
  replaySession,
} from '../../examples/procedures/reference-replay.js';
import { OOW_CATEGORIES } from '../../src/dialog/session-events.js';
import { callTool } from '../../src/tools/call-tool.js';
import type { JsonValue, ToolSet } from '../../src/tools/tool.js';
import { loadToolsFile } from '../../src/tools/tools-file.js';

interface PdlDocument {
  Name: string;
  Desc: string;
  Detailed_desc: string;
  SLOTs: { name: string; desc: string; type?: string }[];
  APIs: { name: string; desc: string; request: string[]; response: string[]; precondition: string[] }[];
  ANSWERs: { name: string; desc: string; precondition?: string[] }[];
  Procedure: string;
}
interface Profile {
  id: string;
  persona: string;
  details: Record<string, unknown>;
  needs: string[];
  style: string;
  pattern: string;
  required_apis: string[];
  goals: (string | { goal: string; apis: string[] })[];
}

const NAMES = Object.keys(PROCEDURE_TOOLS);

function load(name: string) {
  const dir = join(PROCEDURES_DIR, name);
  // A missing procedure fails the first test, not the collection of all the others.
  if (!existsSync(join(dir, 'references.jsonl'))) {
    const empty: PdlDocument = {
      Name: '',
      Desc: '',
      Detailed_desc: '',
      SLOTs: [],
      APIs: [],
      ANSWERs: [],
      Procedure: '',
    };
    return { pdl: empty, profiles: [] as Profile[], references: [] as ReferenceSession[] };
  }
  return {
    pdl: parse(readFileSync(join(dir, `${name}.pdl.yaml`), 'utf8')) as PdlDocument,
    profiles: readJsonLines<Profile>(join(dir, 'profiles.jsonl')),
    references: readJsonLines<ReferenceSession>(join(dir, 'references.jsonl')),
  };
}

let api: BusinessApi;
beforeAll(async () => {
  api = await startBusinessApi();
});
afterAll(async () => {
  await api.close();
});

async function toolsOf(name: string): Promise<ToolSet> {
  return loadToolsFile(PROCEDURE_TOOLS[name]!, { env: { BUSINESS_API_URL: api.url } });
}

describe('examples/procedures', () => {
  it('has six procedures, each with a PDL file, >= 5 profiles and >= 3 reference sessions, listed in the README', () => {
    expect(NAMES).toHaveLength(6);
    const readme = readFileSync(join(PROCEDURES_DIR, 'README.md'), 'utf8');
    for (const name of NAMES) {
      expect(existsSync(join(PROCEDURES_DIR, name, `${name}.pdl.yaml`)), name).toBe(true);
      const { profiles, references } = load(name);
      expect(profiles.length, name).toBeGreaterThanOrEqual(5);
      expect(references.length, name).toBeGreaterThanOrEqual(3);
      expect(readme).toContain(`${name}/`);
    }
  });

  describe.each(NAMES)('%s', (name) => {
    const { pdl, profiles, references } = load(name);
    const slots = new Set(pdl.SLOTs.map((slot) => slot.name));
    const apis = new Map(pdl.APIs.map((entry) => [entry.name, entry]));

    it('binds every API to a tool of the same name whose parameters are its request', async () => {
      expect(Object.keys(pdl).sort()).toEqual(
        ['ANSWERs', 'APIs', 'Desc', 'Detailed_desc', 'Name', 'Procedure', 'SLOTs'].sort(),
      );
      const set = await toolsOf(name);
      try {
        for (const entry of pdl.APIs) {
          const tool = set.tools.find((candidate) => candidate.name === entry.name);
          expect(tool, `${name}: no tool ${entry.name}`).toBeDefined();
          const schema = tool!.inputSchema as { properties?: Record<string, unknown>; required?: string[] };
          const properties = Object.keys(schema.properties ?? {});
          for (const param of entry.request) expect(properties, `${entry.name}.${param}`).toContain(param);
          for (const param of schema.required ?? [])
            expect(entry.request, `${entry.name} needs ${param}`).toContain(param);
          for (const pre of entry.precondition) expect(apis.has(pre), `${entry.name} ← ${pre}`).toBe(true);
          expect(pdl.Procedure, `the procedure calls ${entry.name}`).toMatch(new RegExp(`API\\.${entry.name}\\(`));
        }
      } finally {
        await set.close();
      }
    });

    it('provides every request parameter from a slot or the response of an earlier API', () => {
      const provided = new Set(slots);
      for (const entry of pdl.APIs) {
        for (const param of entry.request) expect(provided.has(param), `${entry.name}.${param}`).toBe(true);
        for (const field of entry.response) provided.add(field);
      }
      for (const match of pdl.Procedure.matchAll(/ANSWER\.(\w+)\(/g)) {
        const answer = match[1]!;
        const known = ['request_information', 'answer_out_of_workflow_questions', ...pdl.ANSWERs.map((a) => a.name)];
        expect(known, `ANSWER.${answer}`).toContain(answer);
      }
    });

    it('has profiles in the slot names, whose required APIs and goals name its APIs', () => {
      expect(new Set(profiles.map((profile) => profile.id)).size).toBe(profiles.length);
      for (const profile of profiles) {
        expect(profile.persona && profile.style && profile.pattern, profile.id).toBeTruthy();
        expect(profile.needs.length, profile.id).toBeGreaterThan(0);
        for (const key of Object.keys(profile.details)) expect(slots.has(key), `${profile.id}.${key}`).toBe(true);
        for (const required of profile.required_apis) expect(apis.has(required), `${profile.id}`).toBe(true);
        expect(profile.goals.length, profile.id).toBeGreaterThan(0);
        for (const goal of profile.goals) {
          expect(typeof goal === 'object' && goal.apis.length > 0, `${profile.id}: goals carry apis`).toBe(true);
          if (typeof goal === 'object') for (const used of goal.apis) expect(apis.has(used), used).toBe(true);
        }
      }
    });

    it('has reference sessions that call APIs only once their preconditions succeeded, one with an OOW turn', () => {
      const profileIds = new Set(profiles.map((profile) => profile.id));
      let oowTurns = 0;
      for (const session of references) {
        if (session.profile !== undefined) expect(profileIds.has(session.profile), session.id).toBe(true);
        const succeeded = new Set<string>();
        for (const message of session.messages) {
          if (message.role === 'user') {
            if (message.oow !== undefined) {
              oowTurns++;
              const [category, subtype] = message.oow.split('/');
              expect(OOW_CATEGORIES as readonly string[], session.id).toContain(category);
              expect(subtype, session.id).toBeTruthy();
            }
            continue;
          }
          if (!isToolMessage(message)) continue;
          const entry = apis.get(message.tool);
          expect(entry, `${session.id}: ${message.tool}`).toBeDefined();
          const missing = entry!.precondition.filter((pre) => !succeeded.has(pre));
          expect(missing, `${session.id}: ${message.tool} before its preconditions`).toEqual([]);
          if (message.ok) {
            succeeded.add(message.tool);
            // The PDL's response names are fields the API really returns.
            for (const field of entry!.response) {
              expect(Object.keys(message.result as object), `${message.tool}.${field}`).toContain(field);
            }
          }
        }
        // A reference is a correct session: it calls what its profile requires, and its goals' APIs succeed.
        const profile = profiles.find((candidate) => candidate.id === session.profile);
        const called = new Set(session.messages.filter(isToolMessage).map((message) => message.tool));
        for (const required of profile?.required_apis ?? []) {
          expect([...called], `${session.id} calls ${required}`).toContain(required);
        }
        for (const goal of profile?.goals ?? []) {
          for (const used of typeof goal === 'object' ? goal.apis : []) {
            expect([...succeeded], `${session.id}: ${used} succeeds`).toContain(used);
          }
        }
      }
      expect(oowTurns, name).toBeGreaterThan(0);
    });

    it("reaches every profile's goals on a fresh server, passing details and earlier results on by name", async () => {
      // What a compliant bot does with a profile: call its APIs in PDL order once their preconditions succeeded,
      // with arguments taken by name from the user's details and from earlier results. The profiles' details
      // must match the seed data for this to reach the goals.
      const set = await toolsOf(name);
      try {
        for (const profile of profiles) {
          api.reset();
          const goalApis = profile.goals.flatMap((goal) => (typeof goal === 'object' ? goal.apis : []));
          const wanted = pdl.APIs.filter((entry) => [...profile.required_apis, ...goalApis].includes(entry.name));
          const known = new Map<string, unknown>(Object.entries(profile.details));
          const succeeded = new Set<string>();
          const called = new Set<string>();
          const tried = new Set<string>();
          for (let step = 0; step < 20; step++) {
            const next = wanted.find(
              (entry) =>
                !succeeded.has(entry.name) &&
                entry.precondition.every((pre) => succeeded.has(pre)) &&
                entry.request.every((param) => known.has(param)) &&
                !tried.has(`${entry.name}#${known.size}`),
            );
            if (!next) break;
            tried.add(`${next.name}#${known.size}`);
            const args = Object.fromEntries(next.request.map((param) => [param, known.get(param)]));
            called.add(next.name);
            const outcome = await callTool(set.tools.find((tool) => tool.name === next.name)!, args as JsonValue, {
              retries: 0,
            });
            if (!outcome.ok) continue;
            succeeded.add(next.name);
            for (const [field, value] of Object.entries(outcome.result as object)) known.set(field, value);
          }
          expect([...succeeded], profile.id).toEqual(expect.arrayContaining([...new Set(goalApis)]));
          // Required APIs are the ones a correct session calls (tool F1); a business refusal may be among them.
          expect([...called], profile.id).toEqual(expect.arrayContaining(profile.required_apis));
          expect(api.stats().violations, profile.id).toBe(0);
        }
      } finally {
        await set.close();
      }
    });

    it('replays every reference session against a fresh server with the recorded results and no violation', async () => {
      const set = await toolsOf(name);
      try {
        for (const session of references) {
          api.reset();
          const { differences } = await replaySession(set, session);
          expect(differences).toEqual([]);
          expect(api.stats().violations, session.id).toBe(0);
        }
      } finally {
        await set.close();
      }
    });
  });
});
