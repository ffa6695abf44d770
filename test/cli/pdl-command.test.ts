/**
 * `weft pdl check` and `weft pdl show`, run through the CLI's main (in-process): located problems,
 * exit 2 on errors and 0 with only warnings, the `--json` shape, bindings against `--tools` and the file's own
 * `tools:` section, and the drawings.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonDocument } from '../e2e/weft-cli.js';
import { type CliResult, cli } from './cli-harness.js';

const PDL = 'test/fixtures/pdl';
const TOOLS = 'examples/business-api/tools.yaml';
const scratch = mkdtempSync(join(tmpdir(), 'weft-pdl-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// The business API's tools need its URL to be built; nothing is called, so no server runs.
// In-process (cli-harness): the command's code path is the same as a child's, without a tsx start-up per call.
const ENV = { BUSINESS_API_URL: 'http://127.0.0.1:9', API_TOKEN: 'tok-pdl-secret' };
const saved = Object.fromEntries(Object.keys(ENV).map((key) => [key, process.env[key]]));
beforeAll(() => Object.assign(process.env, ENV));
afterAll(() => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});
const weft = (args: readonly string[]): Promise<CliResult> => cli(args);

describe('weft pdl check', () => {
  it('prints each problem as file:line:column path: severity: message and exits 2 on errors', async () => {
    const [ok, broken, warnings] = await Promise.all([
      weft(['pdl', 'check', `${PDL}/order-return.pdl.yaml`, '--tools', TOOLS]),
      weft(['pdl', 'check', `${PDL}/broken.pdl.yaml`]),
      weft(['pdl', 'check', `${PDL}/warnings-only.pdl.yaml`]),
    ]);
    expect(ok).toMatchObject({ code: 0, stdout: `${PDL}/order-return.pdl.yaml: ok\n`, stderr: '' });

    expect(broken.code).toBe(2);
    const out = broken.stdout.trim().split('\n');
    expect(out.slice(0, 3)).toEqual([
      `${PDL}/broken.pdl.yaml:3:1 Descrption: error: unknown key "Descrption" (did you mean "Desc"?); allowed: Name, Desc, Detailed_desc, SLOTs, APIs, ANSWERs, Procedure, controllers, tools, allowHosts`,
      `${PDL}/broken.pdl.yaml:7:5 SLOTs[1].name: error: duplicate slot name "email" (also SLOTs[0])`,
      `${PDL}/broken.pdl.yaml:14:28 APIs[1].request[1]: warning: request parameter "postal_code" of API "verify_customer": no slot, no response of an API it depends on and nothing the procedure assigns before calling it provides it (a slot "postal_code"?)`,
    ]);
    expect(out).toContain(
      `${PDL}/broken.pdl.yaml:19:20 APIs[2].precondition[0]: error: precondition cycle: loop_a → loop_b → loop_a (each needs the next); none of these APIs could ever be called`,
    );
    expect(out).toContain(
      `${PDL}/broken.pdl.yaml:33:3 Procedure: error: unknown API "verify_custmer" (did you mean "verify_customer"?)`,
    );
    expect(out.slice(-2)).toEqual([
      `${PDL}/broken.pdl.yaml: bindings not checked: no --tools and no tools: section`,
      `${PDL}/broken.pdl.yaml: 11 errors, 1 warning`,
    ]);

    expect(warnings.code).toBe(0);
    expect(warnings.stdout).toContain(
      `${PDL}/warnings-only.pdl.yaml:10:24 APIs[1].request[1]: warning: request parameter "delivery_address"`,
    );
    expect(warnings.stdout).toContain(`${PDL}/warnings-only.pdl.yaml: 0 errors, 1 warning\n`);
  });

  it('--json prints { ok, problems: [{ severity, line, column, path, message }] }', async () => {
    const [broken, ok] = await Promise.all([
      weft(['pdl', 'check', `${PDL}/broken.pdl.yaml`, '--json']),
      weft(['pdl', 'check', `${PDL}/warnings-only.pdl.yaml`, '--json']),
    ]);
    expect(broken.code).toBe(2);
    const document = jsonDocument(broken) as { ok: boolean; problems: Record<string, unknown>[] };
    expect(document.ok).toBe(false);
    expect(document.problems).toHaveLength(12);
    expect(document.problems[3]).toEqual({
      severity: 'error',
      line: 16,
      column: 20,
      path: 'APIs[1].precondition[0]',
      message:
        'unknown API "find_custmer" in the precondition of API "verify_customer" (did you mean "find_customer"?)',
    });
    expect(ok.code).toBe(0);
    expect(jsonDocument(ok)).toMatchObject({ ok: true, bindingsChecked: false, problems: [{ severity: 'warning' }] });
  });

  it("checks bindings against --tools and the file's own tools: section, and reports a tools file's problems", async () => {
    const unsetEnv = join(scratch, 'tools.yaml');
    writeFileSync(
      unsetEnv,
      'allowHosts: [127.0.0.1]\ntools:\n  - kind: http\n    name: find_customer\n    description: x\n    url: ${env:WEFT_PDL_TEST_UNSET}/c\n    input: { type: object }\n',
    );
    const [calculator, wild, badTools] = await Promise.all([
      weft(['pdl', 'check', `${PDL}/calculator.pdl.yaml`, '--json']),
      weft(['pdl', 'check', `${PDL}/wild.pdl.yaml`, '--tools', TOOLS]),
      weft(['pdl', 'check', `${PDL}/order-return.pdl.yaml`, '--tools', unsetEnv, '--json']),
    ]);
    // The module tools of test/fixtures/tools/math-tools.mjs: add, divide, round; no multiply.
    expect(calculator.code).toBe(2);
    expect(jsonDocument(calculator)).toEqual({
      ok: false,
      bindingsChecked: true,
      declaredOnly: [],
      simulated: [],
      problems: [
        {
          severity: 'error',
          line: 12,
          column: 7,
          path: 'APIs[3].name',
          message: 'no tool binds API "multiply": no tool of that name',
        },
      ],
    });
    expect(wild.code).toBe(2);
    expect(wild.stdout).toContain(
      `${PDL}/wild.pdl.yaml:11:5 APIs[0].name: error: no tool binds API "check_restaurant": no tool of that name\n`,
    );
    expect(badTools.code).toBe(2);
    expect(jsonDocument(badTools)).toEqual({
      ok: false,
      bindingsChecked: false,
      declaredOnly: [],
      simulated: [],
      problems: [
        {
          severity: 'error',
          file: unsetEnv,
          line: 6,
          column: 5,
          path: 'tools[0].url',
          message: 'environment variable WEFT_PDL_TEST_UNSET is not set',
        },
      ],
    });
  });

  it('exits 2 for what is not a PDL file: missing, a folder, binary junk, too deeply nested', async () => {
    const junk = join(scratch, 'junk.pdl.yaml');
    writeFileSync(junk, Buffer.from([0x4e, 0x3a, 0x20, 0x00, 0xff, 0xfe, 0x01, 0x02, 0x0a, 0x80]));
    const deep = join(scratch, 'deep.pdl.yaml');
    writeFileSync(deep, `Name: N\nAPIs: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n`);
    const [missing, folder, binary, nested] = await Promise.all([
      weft(['pdl', 'check', join(scratch, 'none.pdl.yaml')]),
      weft(['pdl', 'check', scratch, '--json']),
      weft(['pdl', 'check', junk]),
      weft(['pdl', 'check', deep]),
    ]);
    expect(missing).toMatchObject({
      code: 2,
      stderr: `weft: ${join(scratch, 'none.pdl.yaml')}: cannot read the PDL file: no such file\n`,
    });
    expect(folder.code).toBe(2);
    expect(jsonDocument(folder)).toMatchObject({
      error: { code: 'BAD_INPUT', message: 'cannot read the PDL file: it is a folder' },
    });
    expect(binary).toMatchObject({ code: 2, stderr: '' });
    expect(binary.stdout).toContain(`${junk}:1:4: error: is not a text file (it holds NUL bytes)\n`);
    expect(nested.code).toBe(2);
    expect(nested.stdout).toContain(`${deep}:2:`);
    expect(nested.stdout).toContain('invalid YAML: nested deeper than 100 levels');
  });
});

describe('weft pdl show', () => {
  it('draws the dependency graph as text, Mermaid or JSON; a file with errors exits 2', async () => {
    const [text, mermaid, json, broken] = await Promise.all([
      weft(['pdl', 'show', `${PDL}/order-return.pdl.yaml`]),
      weft(['pdl', 'show', `${PDL}/order-return.pdl.yaml`, '--mermaid']),
      weft(['pdl', 'show', `${PDL}/order-return.pdl.yaml`, '--json']),
      weft(['pdl', 'show', `${PDL}/broken.pdl.yaml`]),
    ]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      'APIs, in dependency order:\n  1. find_customer(email) → customer_id, verified\n  2. verify_customer(customer_id, postal_code) → verified\n       after: find_customer\n',
    );
    expect(mermaid.code).toBe(0);
    expect(mermaid.stdout).toMatch(/^flowchart TD\n/);
    expect(mermaid.stdout).toContain(
      '  api_approve_return --> api_issue_refund\n  api_issue_refund -.-> answer_refund_issued\n',
    );
    expect(json.code).toBe(0);
    const document = jsonDocument(json) as { order: string[]; references: unknown[]; sha256: string };
    expect(document.order).toEqual([
      'find_customer',
      'verify_customer',
      'get_order',
      'create_return',
      'approve_return',
      'issue_refund',
    ]);
    expect(document.references).toHaveLength(9);
    expect(document.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(broken.code).toBe(2);
    expect(broken.stdout).toBe('');
    expect(broken.stderr).toContain(`weft: ${PDL}/broken.pdl.yaml: invalid PDL file: 11 problems\n`);
    expect(broken.stderr).toContain(
      `  - ${PDL}/broken.pdl.yaml:35:3 Procedure: unknown API "refund_issued"; "refund_issued" is an answer: ANSWER.refund_issued(…)`,
    );
  });

  it('draws conditions on results: in the text, as Mermaid edge labels, and in the JSON', async () => {
    const file = `${PDL}/flight-conditions.pdl.yaml`;
    const [check, text, mermaid, json] = await Promise.all([
      weft(['pdl', 'check', file]),
      weft(['pdl', 'show', file]),
      weft(['pdl', 'show', file, '--mermaid']),
      weft(['pdl', 'show', file, '--json']),
    ]);
    expect(check.stdout).toBe(`${file}: bindings not checked: no --tools and no tools: section\n${file}: ok\n`);
    expect(text.stdout).toContain(
      '  2. book(date, seats) → booking_id\n       after: checkAvailability.is_air == "true", checkAvailability.seats_left >= 1\n',
    );
    expect(text.stdout).toContain('  no_room  (after: checkAvailability.is_air == "false")');
    expect(mermaid.stdout.split('\n')).toEqual(
      expect.arrayContaining([
        '  api_checkAvailability -- "is_air == #34;true#34; and seats_left #62;= 1" --> api_book',
        '  api_book -.-> answer_booked',
        '  api_checkAvailability -. "is_air == #34;false#34;" .-> answer_no_room',
      ]),
    );
    const document = jsonDocument(json) as {
      apis: { name: string; precondition: string[]; conditions?: unknown[] }[];
      edges: unknown[];
    };
    expect(document.apis[1]).toMatchObject({
      name: 'book',
      precondition: ['checkAvailability'],
      conditions: [
        { api: 'checkAvailability', field: ['is_air'], op: '==', value: 'true' },
        { api: 'checkAvailability', field: ['seats_left'], op: '>=', value: 1 },
      ],
    });
    expect(document.edges).toEqual([
      { from: 'checkAvailability', to: 'book', conditions: ['is_air == "true"', 'seats_left >= 1'] },
    ]);
  });

  it('check locates a bad condition and warns on a field the API does not return', async () => {
    const file = join(scratch, 'bad-condition.pdl.yaml');
    writeFileSync(
      file,
      [
        'Name: N',
        'Desc: D',
        'APIs:',
        '  - name: check',
        '    response: [is_air]',
        '  - name: go',
        '    precondition:',
        '      - check.is_air = true',
        '      - check.is_ai == true',
        'Procedure: API.go()',
        '',
      ].join('\n'),
    );
    const result = await weft(['pdl', 'check', file, '--json']);
    expect(result.code).toBe(2);
    const document = jsonDocument(result) as {
      problems: { severity: string; line: number; column: number; path: string; message: string }[];
    };
    expect(document.problems).toEqual([
      {
        severity: 'error',
        line: 8,
        column: 9,
        path: 'APIs[1].precondition[0]',
        message: 'bad condition: "=" is not an operator; use ==, !=, <, <=, > or >=',
      },
      {
        severity: 'warning',
        line: 9,
        column: 9,
        path: 'APIs[1].precondition[1]',
        message:
          'the condition check.is_ai == true reads "is_ai", which is not in the response of check (is_air) (did you mean "is_air"?)',
      },
    ]);
  });
});
