/**
 * The FlowAgent authors' file formats read as they are (test/fixtures/flowagent, written by us in their formats with
 * their quirks): the PDL with free-text answers, the tools spec as declarations, profiles as a JSON array without
 * ids, the 3 × 17 taxonomy; then a whole simulated session of that procedure offline, its APIs simulated.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli as weft } from '../cli/cli-harness.js';
import { jsonDocument } from '../e2e/weft-cli.js';
import { formatError, WeftError } from '../../src/errors.js';
import { loadPdlFile, parsePdl } from '../../src/dialog/parse-pdl.js';
import { checkPdl } from '../../src/dialog/check-pdl.js';
import { loadProfiles, parseProfiles } from '../../src/dialog/profiles.js';
import { loadOowTaxonomy } from '../../src/dialog/oow-taxonomy.js';
import { loadToolsFile } from '../../src/tools/tools-file.js';
import { thrownError } from './thrown-error.js';

const DIR = 'test/fixtures/flowagent';
const PDL = `${DIR}/pdl/000.yaml`;
const TOOLS = `${DIR}/tools/000.yaml`;
const PROFILES = `${DIR}/user_profile/000.json`;
const OOW = `${DIR}/meta/oow.yaml`;
const SIM = ['--model', 'sim:seed=1', '--user-model', 'sim:seed=2', '--judge', 'sim:seed=3'];
/** `weft simulate` of the fixtures, its APIs simulated, by the sim models. */
const SIMULATE = ['simulate', PDL, '--tools', TOOLS, '--profiles', PROFILES, ...SIM, '--simulate-apis'];
const scratch = mkdtempSync(join(tmpdir(), 'weft-flowagent-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the PDL file', () => {
  it('reads free-text answer names, called with spaces as underscores, their text as their description', async () => {
    const pdl = await loadPdlFile(PDL);
    const answers = pdl.answers.filter((answer) => !answer.builtIn);
    expect(answers).toEqual([
      {
        name: 'Other_free_response_questions',
        label: 'Other free response questions',
        desc: 'Other free response questions',
        precondition: [],
      },
      {
        name: 'Please_provide_necessary_information',
        label: 'Please provide necessary information',
        desc: 'Please provide necessary information',
        precondition: [],
      },
    ]);
    expect(pdl.references.filter((reference) => reference.kind === 'answer').map((r) => r.name)).toEqual([
      'Please_provide_necessary_information',
      'Please_provide_necessary_information',
    ]);
    // `Detailed_desc:` left empty, as in the authors' files, is no detailed description.
    expect(pdl.detailedDesc).toBeUndefined();
  });

  it('takes free-text API names too, in preconditions as well; two names that map to one are an error', () => {
    const text = [
      'Name: x',
      'Desc: y',
      'APIs:',
      '  - name: check  stock',
      '  - name: place order',
      '    precondition: [check stock]',
      'ANSWERs:',
      '  - name: Ask for it',
      '  - name: Ask  for it',
      'PDL: |',
      '  API_check_stock()',
      '  API_place_order()',
      '  ANSWER_Ask_for_it()',
    ].join('\n');
    const parsed = parsePdl(text, { file: 'p.yaml' });
    expect(parsed.pdl?.apis.map((api) => [api.name, api.label, api.precondition])).toEqual([
      ['check_stock', 'check  stock', []],
      ['place_order', 'place order', ['check_stock']],
    ]);
    const problems = [...parsed.problems, ...checkPdl(parsed.pdl!)].map(
      (problem) => `${problem.severity} ${problem.line}:${problem.column} ${problem.path}: ${problem.message}`,
    );
    expect(problems).toEqual([
      'error 9:5 ANSWERs[1].name: answer names "Ask for it" (ANSWERs[0]) and "Ask  for it" both map to "Ask_for_it", the name the procedure calls them by',
    ]);
    // What cannot be an identifier even with underscores is still refused, with the rule.
    const bad = parsePdl('Name: x\nANSWERs:\n  - name: "ask? now"\nPDL: x\n', { file: 'q.yaml' });
    expect(bad.problems.map((problem) => problem.message)).toContain(
      '"ask? now" is not a name: letters, digits, _ and spaces (each run of spaces is called as one _), not starting with a digit (e.g. ask_now)',
    );
  });

  it('`weft pdl check` passes it with the tools spec as its bindings', async () => {
    const result = await weft(['pdl', 'check', PDL, '--tools', TOOLS]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`${PDL}: ok`);
    // It says which APIs only a model can answer.
    expect(result.stdout).toContain(
      `${PDL}: declared without an endpoint (chat and simulate need --simulate-apis for them): checkRooms, bookRoom`,
    );
    const json = jsonDocument(await weft(['pdl', 'check', PDL, '--tools', TOOLS, '--json']));
    expect(json).toMatchObject({
      ok: true,
      bindingsChecked: true,
      declaredOnly: ['checkRooms', 'bookRoom'],
      simulated: [],
    });
  });
});

describe('the tools spec', () => {
  it('becomes declarations: trimmed keys, required flags in the schema, an output schema, no endpoint', async () => {
    const set = await loadToolsFile(TOOLS);
    const [check, book] = set.tools;
    expect(check).toMatchObject({
      name: 'checkRooms',
      description: 'Tells whether the hotel has a free room on the given day',
      declaredOnly: true,
      idempotent: false,
      inputSchema: {
        type: 'object',
        properties: {
          hotel_code: { type: 'string', description: 'The hotel, e.g. "H-LIS-01"' },
          // `" description"` in the file
          check_in: { type: 'string', description: 'The arrival date. Defaults to today.' },
        },
        required: ['hotel_code'],
      },
      outputSchema: { type: 'object', properties: { has_room: { type: 'string' } } },
    });
    // `"type "` and `"description "` in the file
    expect(book!.inputSchema).toMatchObject({
      properties: { room_kind: { type: 'string', description: 'Room kind. Enumerated type, [Single, Double, Suite]' } },
      required: ['hotel_code', 'room_kind'],
    });
    await expect(check!.call({ hotel_code: 'H' }, { signal: new AbortController().signal })).rejects.toThrow(
      /declared .* but has no endpoint; .*--simulate-apis/,
    );
  });

  it('locates every problem of a malformed spec', async () => {
    const file = join(scratch, 'bad-spec.yaml');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      file,
      [
        '- API: a b',
        '  API Descripton: x',
        '  Input parameters: {"p": {"type": "strng", "requred": true}, "q": 3}',
        '- API: a_b',
        '- 7',
      ].join('\n'),
    );
    const error = await loadToolsFile(file).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(WeftError);
    expect(formatError(error as WeftError)).toBe(
      [
        `${file}: invalid tools spec: 6 problems`,
        `  - ${file}:2:3 [0]["API Descripton"]: unknown key "API Descripton" (did you mean "API Description"?); allowed: API, API Description (or the spelling "API Desciption"), Input parameters, Output parameters`,
        `  - ${file}:3:28 [0]["Input parameters"].p.type: unknown type "strng"; one of: string, str, text, integer, int, number, float, double, boolean, bool, array, list, object, dict`,
        `  - ${file}:3:45 [0]["Input parameters"].p.requred: unknown key "requred" (did you mean "required"?); allowed: type, description, required, enum, default, items`,
        `  - ${file}:3:63 [0]["Input parameters"].q: expected {type, description, required}, got a number`,
        `  - ${file}:4:3 [1].API: API "a_b" is declared twice (also entry 1)`,
        `  - ${file}:5:3 [2]: expected an API entry (a map with "API"), got a number`,
      ].join('\n'),
    );
  });
});

describe('the profiles', () => {
  it("are read from a JSON array in the authors' format, numbered from 1, goals from the needs", async () => {
    const profiles = await loadProfiles(PROFILES);
    expect(profiles.map((profile) => [profile.id, profile.index, profile.format, profile.line])).toEqual([
      ['1', 0, 'flowagent', 2],
      ['2', 1, 'flowagent', 10],
      ['3', 2, 'flowagent', 17],
    ]);
    const [rui, ana, student] = profiles;
    expect(rui).toMatchObject({
      persona: 'A consultant who travels every week and wants bookings done fast',
      details: { name: 'Rui Costa', age: '41', phone: '+351 900 000 001', loyalty_number: 'LY-7781' },
      needs: [
        'Rui needs a room in Lisbon for next Monday.',
        'He wants to know at once whether a room is free, and the booking code when it is booked.',
      ],
      style: '- Short, to the point.',
      pattern: '- Gives the hotel and the date first, then the room kind when asked.',
      requiredApis: ['checkRooms', 'bookRoom'],
      goals: [
        { goal: 'Rui needs a room in Lisbon for next Monday.' },
        { goal: 'He wants to know at once whether a room is free, and the booking code when it is booked.' },
      ],
    });
    // No required_apis: none, not an empty list (its tool F1 cannot be computed).
    expect(ana!.requiredApis).toBeUndefined();
    expect(student).toMatchObject({
      details: { details: 'Student, no loyalty card.' },
      pattern: '- Asks about prices before booking.',
    });
  });

  it('locates problems in the array by element and field, all at once', () => {
    const text = JSON.stringify(
      [
        { persona: 'a', user_needs: 'x', dialog_style: 'y' },
        { persona: 'b', interactive_pattern: 'p', interaction_patterns: 'q', user_needs: 'n' },
        { persona: 'c', user_details: 5 },
        3,
      ],
      null,
      1,
    );
    expect(formatError(thrownError(() => parseProfiles(text, 'p.json')))).toBe(
      [
        'p.json: invalid profiles file: 5 problems',
        '  - p.json:5:3 [0].dialog_style: unknown field "dialog_style" (did you mean "dialogue_style"?); allowed fields: id, persona, user_details, user_needs, dialogue_style, interactive_pattern, interaction_patterns, required_apis, goals',
        '  - p.json:10:3 [1].interaction_patterns: both "interactive_pattern" and "interaction_patterns" are given; keep one',
        '  - p.json:15:3 [2].user_details: "user_details" must be text (or an object of names to values), got a number',
        '  - p.json:13:2 [2].user_needs: no "goals" and no "user_needs" to take them from: say what the user wants done (the judge scores it)',
        '  - p.json:17:2 [3]: expected an object, got a number',
      ].join('\n'),
    );
  });
});

describe('the taxonomy file', () => {
  it("loads with 3 categories of 17 subtypes, under the paper's ids", async () => {
    const taxonomy = await loadOowTaxonomy(OOW);
    expect(taxonomy.categories.map((category) => [category.id, category.subtypes.length])).toEqual([
      ['intent_switching', 5],
      ['irrelevant_answering', 6],
      ['procedure_jumping', 6],
    ]);
  });
});

describe('a whole simulated session of the procedure, offline', () => {
  it('`weft simulate --simulate-apis --oow-taxonomy --oow-assignment per-profile`: both protocols reported', async () => {
    const home = join(scratch, 'simulate');
    const result = await weft(
      [
        ...SIMULATE,
        '--oow',
        '0.4',
        '--oow-taxonomy',
        OOW,
        '--oow-assignment',
        'per-profile',
        '--keep-sessions',
        '--json',
      ],
      { WEFT_HOME: home },
    );
    expect(result.code, result.stderr).toBe(0);
    const document = jsonDocument(result) as Record<string, unknown> & {
      perSession: {
        id: string;
        oow: string[];
        calledApis: string[];
        proposedApis: string[];
        toolF1: number | null;
        paper: { toolF1: number | null; notComputable?: string };
        sessionId: string;
      }[];
      paper: Record<string, unknown>;
      oowSetup: Record<string, unknown>;
    };
    expect(document.oowSetup).toMatchObject({ probability: 0.4, assignment: 'per-profile', taxonomy: OOW });
    // Per profile, as the authors' code: profile k keeps category k mod 3 (the file's order), tagged without subtype.
    const categories = ['intent_switching', 'irrelevant_answering', 'procedure_jumping'];
    document.perSession.forEach((session, index) => {
      for (const tag of session.oow) expect(tag).toBe(categories[index]);
    });
    expect(document.perSession.flatMap((session) => session.oow).length).toBeGreaterThan(0);
    // The paper's figures in `paper`, Weft's at the top level; profile 2 has no required_apis.
    expect(Object.keys(document.paper).sort()).toEqual(
      ['note', 'progress', 'successRate', 'toolCounts', 'toolF1', 'toolPrecision', 'toolRecall', 'toolSessions'].sort(),
    );
    const second = document.perSession[1]!;
    expect(second.toolF1).toBeNull();
    expect(second.paper).toMatchObject({ toolF1: null, notComputable: expect.stringMatching(/no required_apis/) });
    expect(document.paper.toolSessions).toBe(2);
    // The APIs were answered by the sim, recorded as simulated.
    const called = document.perSession.flatMap((session) => session.calledApis);
    expect(called).toContain('checkRooms');
    const shown = jsonDocument(
      await weft(['show-session', document.perSession[0]!.sessionId, '--json'], { WEFT_HOME: home }),
    );
    expect(shown).toMatchObject({
      simulatedApis: ['checkRooms', 'bookRoom'],
      apiModel: expect.stringMatching(/^sim:/),
    });
    const tools = (shown.transcript as { role: string; simulated?: boolean }[]).filter(
      (entry) => entry.role === 'tool',
    );
    expect(tools.length).toBeGreaterThan(0);
    expect(tools.every((entry) => entry.simulated === true)).toBe(true);
    expect((shown.totals as { simulatedToolCalls: number }).simulatedToolCalls).toBe(tools.length);
    const text = await weft(['show-session', document.perSession[0]!.sessionId], { WEFT_HOME: home });
    expect(text.stdout).toMatch(/→ checkRooms\(.*\) \[simulated\] = \{"has_room":"(true|false)"\}/);
    expect(text.stdout).toMatch(/simulated: answered by a model, not the API/);
  });

  it('per profile, any turn may be out of workflow, the first included', async () => {
    const home = join(scratch, 'first-turn');
    const options = ['--oow', '1', '--oow-taxonomy', OOW, '--oow-assignment', 'per-profile', '--keep-sessions'];
    const result = await weft([...SIMULATE, ...options, '--max-turns', '2', '--json'], { WEFT_HOME: home });
    expect(result.code, result.stderr).toBe(0);
    for (const session of jsonDocument(result).perSession as { sessionId: string }[]) {
      const shown = jsonDocument(await weft(['show-session', session.sessionId, '--json'], { WEFT_HOME: home }));
      const first = (shown.transcript as { role: string; turn?: number; oow?: unknown }[]).find(
        (entry) => entry.role === 'user',
      );
      expect(first).toMatchObject({ turn: 1, oow: { category: expect.any(String) } });
    }
  });

  it('the same seeds give the same sessions, simulated answers included', async () => {
    const run = async () =>
      jsonDocument(await weft([...SIMULATE, '--oow', '0.4', '--json'], { WEFT_HOME: join(scratch, 'twice') }))
        .perSession;
    expect(await run()).toEqual(await run());
  });

  it('without --simulate-apis, the declared APIs are unbound, and the error says how to go on', async () => {
    const result = await weft(['simulate', PDL, '--tools', TOOLS, '--profiles', PROFILES, ...SIM], {
      WEFT_HOME: join(scratch, 'unbound'),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('2 APIs have no tool: checkRooms, bookRoom');
    expect(result.stderr).toContain('--simulate-apis');
    expect(result.stderr).toContain('checkRooms is only declared');
  });

  it('`weft chat --simulate-apis` talks to it, and a resume keeps the APIs simulated', async () => {
    const home = join(scratch, 'chat');
    const first = await weft(
      ['chat', PDL, '--tools', TOOLS, '--model', 'sim:seed=4', '--simulate-apis', '--json'],
      { WEFT_HOME: home },
      'hotel_code: H-LIS-01, check_in: 2031-03-03\n/quit\n',
    );
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(
      /\(simulated APIs, answered by sim:\S*seed=4\S*, not by the APIs: checkRooms, bookRoom\)/,
    );
    const sessionId = (jsonDocument(first) as { sessionId: string }).sessionId;
    const again = await weft(
      ['chat', '--session', sessionId, '--json'],
      { WEFT_HOME: home },
      'room_kind: Double\n/end\n',
    );
    expect(again.code, again.stderr).toBe(0);
    const shown = jsonDocument(await weft(['show-session', sessionId, '--json'], { WEFT_HOME: home }));
    const calls = (shown.transcript as { role: string; name?: string; simulated?: boolean }[]).filter(
      (entry) => entry.role === 'tool',
    );
    expect(calls.map((call) => call.name)).toContain('checkRooms');
    expect(calls.every((call) => call.simulated)).toBe(true);
  });
});
