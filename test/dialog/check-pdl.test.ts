/**
 * checkPdl: every kind of problem a procedure's names can have, each at its line and column in the file, all at
 * once; and the API graph it rests on (order, cycles, transitive dependencies) with its drawings.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { apiGraph, dependenciesOf, pdlMermaid, pdlText } from '../../src/dialog/api-graph.js';
import { checkPdl } from '../../src/dialog/check-pdl.js';
import { parsePdl } from '../../src/dialog/parse-pdl.js';
import type { Pdl, PdlApi, PdlProblem } from '../../src/dialog/pdl.js';

function pdlOf(text: string): Pdl {
  const parsed = parsePdl(text, { file: 'p.pdl.yaml' });
  if (!parsed.pdl) throw new Error(JSON.stringify(parsed.problems));
  return parsed.pdl;
}

function lines(problems: readonly PdlProblem[]): string[] {
  return problems.map((p) => `${p.severity} ${p.line}:${p.column} ${p.path ?? ''}: ${p.message}`);
}

const api = (name: string, precondition: string[] = [], request: string[] = [], response: string[] = []): PdlApi => ({
  name,
  request,
  response,
  precondition,
});

describe('checkPdl', () => {
  it('reports every kind of problem at its line and column', () => {
    const pdl = pdlOf(readFileSync('test/fixtures/pdl/broken.pdl.yaml', 'utf8'));
    expect(lines(checkPdl(pdl))).toEqual([
      'error 7:5 SLOTs[1].name: duplicate slot name "email" (also SLOTs[0])',
      'error 22:5 APIs[4].name: duplicate API name "find_customer" (also APIs[0])',
      'error 16:20 APIs[1].precondition[0]: unknown API "find_custmer" in the precondition of API "verify_customer" (did you mean "find_customer"?)',
      'error 26:20 APIs[5].precondition[0]: "refund_issued" in the precondition of API "get_order" is an answer; preconditions name APIs',
      'error 30:20 ANSWERs[0].precondition[0]: unknown API "issue_refund" in the precondition of answer "refund_issued"',
      'error 19:20 APIs[2].precondition[0]: precondition cycle: loop_a → loop_b → loop_a (each needs the next); none of these APIs could ever be called',
      'error 33:3 Procedure: unknown API "verify_custmer" (did you mean "verify_customer"?)',
      'error 34:3 Procedure: unknown ANSWER "refund_isued" (did you mean "refund_issued"?)',
      'error 35:3 Procedure: unknown API "refund_issued"; "refund_issued" is an answer: ANSWER.refund_issued(…)',
      'warning 14:28 APIs[1].request[1]: request parameter "postal_code" of API "verify_customer": no slot, no response of an API it depends on and nothing the procedure assigns before calling it provides it (a slot "postal_code"?)',
    ]);
  });

  it('locates a duplicate answer, a self-cycle and an unknown API under `pre:` in the file', () => {
    const pdl = pdlOf(
      [
        'Name: N',
        'Desc: D',
        'APIs:',
        '  - name: a',
        '    pre: [a]',
        '  - name: b',
        '    pre: "a, nope"',
        'ANSWERs:',
        '  - { name: done, desc: x }',
        '  - { name: done, desc: y }',
        'Procedure: |',
        '  API.b()',
        '  ANSWER_dne()',
      ].join('\n'),
    );
    expect(lines(checkPdl(pdl))).toEqual([
      'error 10:7 ANSWERs[1].name: duplicate answer name "done" (also ANSWERs[0])',
      // A comma string has no node per name: located at the field.
      'error 7:5 APIs[1].pre[1]: unknown API "nope" in the precondition of API "b"',
      'error 5:11 APIs[0].pre[0]: precondition cycle: "a" needs itself; none of these APIs could ever be called',
      'error 13:3 Procedure: unknown ANSWER "dne" (did you mean "done"?)',
    ]);
  });

  it('checks bindings when tool names are given, with a guess at the tool meant', () => {
    const pdl = pdlOf('Name: N\nDesc: D\nAPIs: [find_customer, get_order]\nProcedure: API.get_order()\n');
    expect(lines(checkPdl(pdl))).toEqual([]);
    expect(lines(checkPdl(pdl, { toolNames: ['find_customers', 'track_order'] }))).toEqual([
      'error 3:8 APIs[0].name: no tool binds API "find_customer": no tool of that name (did you mean tool "find_customers"?)',
      'error 3:23 APIs[1].name: no tool binds API "get_order": no tool of that name',
    ]);
    expect(checkPdl(pdl, { toolNames: new Set(['find_customer', 'get_order', 'other']) })).toEqual([]);
  });

  it('takes request parameters from slots, responses of APIs depended on (transitively) and earlier assignments', () => {
    const pdl = pdlOf(
      [
        'Name: N',
        'Desc: D',
        'SLOTs: [email]',
        'APIs:',
        '  - { name: find, request: [email], response: [customer_id] }',
        '  - { name: verify, request: [customer_id], response: [token], pre: [find] }',
        '  - { name: order, request: [customer_id, token, order_id, note], response: [total], pre: [verify] }',
        '  - { name: refund, request: [total, order_id, reason], response: [refund_id] }',
        '  - { name: lonely, request: [zip, total] }',
        'Procedure: |',
        '  [customer_id] = API.find(email)',
        '  order_id = ANSWER.request_information("order id")',
        '  API.verify(customer_id)',
        '  if ok: note = "gift"',
        '  [total] = API.order(customer_id, token, order_id, note)',
        '  API.refund(total, order_id, reason)',
        '  for zip in zips:',
        '      pass',
      ].join('\n'),
    );
    // order: customer_id through verify → find, token from verify, order_id and note assigned before its call.
    // refund: total and order_id were assigned before it; reason nowhere. lonely is never called: any assignment counts.
    expect(lines(checkPdl(pdl))).toEqual([
      'warning 8:48 APIs[3].request[2]: request parameter "reason" of API "refund": no slot, no response of an API it depends on and nothing the procedure assigns before calling it provides it (a slot "reason"?)',
    ]);
    const strict = pdlOf(
      'Name: N\nDesc: D\nAPIs:\n  - { name: find, response: [customer_id] }\n  - { name: verify, request: [customer_id] }\nProcedure: API.verify(customer_id)\n',
    );
    expect(lines(checkPdl(strict))).toEqual([
      'warning 5:31 APIs[1].request[0]: request parameter "customer_id" of API "verify": no slot, no response of an API it depends on and nothing the procedure assigns before calling it provides it (find returns it: a precondition?)',
    ]);
  });

  it('checks a Pdl built by hand: paths, no lines', () => {
    const pdl: Pdl = {
      name: 'N',
      desc: 'D',
      slots: [],
      apis: [api('send_email', ['fetch_user'])],
      answers: [],
      procedure: '',
      references: [{ kind: 'api', name: 'xyz', line: 1, column: 5, outputs: [], inputs: [] }],
      controllers: {},
      hasTools: false,
      sha256: '',
    };
    expect(checkPdl(pdl)).toEqual([
      {
        severity: 'error',
        path: 'APIs[0].precondition[0]',
        message: 'unknown API "fetch_user" in the precondition of API "send_email"',
      },
      { severity: 'error', line: 1, column: 5, path: 'Procedure', message: 'unknown API "xyz"' },
    ]);
  });

  it('shows a huge unknown name or key cut, without guessing at it', () => {
    const long = 'x'.repeat(200_000);
    const parsed = parsePdl(
      `Name: N\nDesc: D\n? ${long}\n: 1\nAPIs: [{ name: f, request: [${long}] }]\nProcedure: API.${'y'.repeat(90_000)}()\n`,
    );
    const problems = [...parsed.problems, ...checkPdl(parsed.pdl!)];
    expect(problems.map((p) => p.message)).toEqual([
      `unknown key "${'x'.repeat(64)}…"; allowed: Name, Desc, Detailed_desc, SLOTs, APIs, ANSWERs, Procedure, controllers, tools, allowHosts`,
      'a name of 200000 characters; at most 64',
      `unknown API "${'y'.repeat(64)}…"`,
    ]);
  });

  it('stays quick on a hostile procedure: thousands of distinct unknown names', () => {
    const apis = Array.from({ length: 500 }, (_, i) => `  - api_number_${i}\n`).join('');
    const procedure = Array.from({ length: 4000 }, (_, i) => `  API.api_nunber_${i}()\n`).join('');
    const pdl = pdlOf(`Name: N\nDesc: D\nAPIs:\n${apis}Procedure: |\n${procedure}`);
    const problems = checkPdl(pdl);
    expect(problems).toHaveLength(4000);
    // Guesses stop after the first 200 names; every problem is still reported, located.
    expect(problems[0]?.message).toBe('unknown API "api_nunber_0" (did you mean "api_number_0"?)');
    expect(problems[3999]).toMatchObject({
      line: 5 + 500 + 4000 - 1,
      column: 3,
      message: 'unknown API "api_nunber_3999"',
    });
  });
});

describe('apiGraph', () => {
  it('orders APIs after their preconditions, ties in file order, and names each cycle once', () => {
    const graph = apiGraph({
      apis: [api('pay', ['cart', 'login']), api('login'), api('cart', ['login']), api('x', ['y']), api('y', ['x'])],
    });
    expect(graph.order).toEqual(['login', 'cart', 'pay', 'x', 'y']);
    expect(graph.edges).toEqual([
      { from: 'cart', to: 'pay' },
      { from: 'login', to: 'pay' },
      { from: 'login', to: 'cart' },
      { from: 'y', to: 'x' },
      { from: 'x', to: 'y' },
    ]);
    expect(graph.cycles).toEqual([['x', 'y', 'x']]);
    expect([...dependenciesOf({ apis: [api('pay', ['cart']), api('cart', ['login']), api('login')] }, 'pay')]).toEqual([
      'cart',
      'login',
    ]);
  });

  it('finds a short cycle in a tangle and survives a chain of 500', () => {
    const graph = apiGraph({ apis: [api('a', ['b']), api('b', ['c', 'a']), api('c', ['a'])] });
    expect(graph.cycles).toEqual([['a', 'b', 'a']]);
    const chain = Array.from({ length: 500 }, (_, i) => api(`n${i}`, i === 0 ? ['n499'] : [`n${i - 1}`]));
    const cyclic = apiGraph({ apis: chain });
    expect(cyclic.cycles).toHaveLength(1);
    expect(cyclic.cycles[0]).toHaveLength(501);
    expect(cyclic.order).toHaveLength(500);
  });

  it('draws the graph as text and as Mermaid', () => {
    const pdl = pdlOf(readFileSync('test/fixtures/pdl/wild.pdl.yaml', 'utf8'));
    expect(pdlText(pdl)).toBe(
      [
        '114 — Book a table',
        '',
        'Slots: restaurant, party_size, time',
        '',
        'APIs, in dependency order:',
        '  1. check_restaurant(restaurant) → restaurant_exists',
        '  2. check_time(restaurant, time) → slots_free',
        '       after: check_restaurant',
        '  3. book_table(restaurant, time, party_size) → booking_id',
        '       after: check_restaurant, check_time',
        '',
        'Answers:',
        '  booked  (after: book_table)',
        '       Your table is booked.',
        '  answer_out_of_workflow_questions',
        '       Answer a question outside the procedure briefly and honestly, then lead back to the procedure.',
        '  request_information  (built in)',
      ].join('\n'),
    );
    expect(pdlMermaid(pdl)).toBe(
      [
        'flowchart TD',
        '  %% 114',
        '  api_check_restaurant["check_restaurant"]',
        '  api_check_time["check_time"]',
        '  api_book_table["book_table"]',
        '  answer_booked(["booked"])',
        '  api_check_restaurant --> api_check_time',
        '  api_check_restaurant --> api_book_table',
        '  api_check_time --> api_book_table',
        '  api_book_table -.-> answer_booked',
      ].join('\n'),
    );
  });

  it('keeps odd names of a hand-built Pdl from breaking the Mermaid syntax', () => {
    const text = pdlMermaid({ name: 'x\n%% y', apis: [api('a"b'), api('end', ['a"b'])], answers: [] });
    expect(text).toBe(
      ['flowchart TD', '  %% x %% y', '  api_a_34_b["a#34;b"]', '  api_end["end"]', '  api_a_34_b --> api_end'].join(
        '\n',
      ),
    );
  });
});
