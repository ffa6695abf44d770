/**
 * Preconditions on results in PDL files (`checkAvailability.is_air == "true"`): read among the names in every form a
 * precondition takes, bad ones located at their line and column, checked against the APIs' responses, and drawn
 * by `pdlText`, `pdlMermaid` and the bot's prompt.
 */
import { describe, expect, it } from 'vitest';
import { apiGraph, pdlMermaid, pdlText } from '../../src/dialog/api-graph.js';
import { botSystemPrompt } from '../../src/dialog/bot-prompt.js';
import { checkPdl } from '../../src/dialog/check-pdl.js';
import { parsePdl } from '../../src/dialog/parse-pdl.js';
import type { Pdl, PdlProblem } from '../../src/dialog/pdl.js';
import { readDialogBlock } from '../../src/dialog/dialog-prompt-tags.js';

function parsed(text: string): { pdl: Pdl; problems: PdlProblem[] } {
  const result = parsePdl(text, { file: 'f.pdl.yaml' });
  if (!result.pdl) throw new Error(JSON.stringify(result.problems));
  return { pdl: result.pdl, problems: result.problems };
}

function lines(problems: readonly PdlProblem[]): string[] {
  return problems.map((p) => `${p.severity} ${p.line}:${p.column} ${p.path ?? ''}: ${p.message}`);
}

const FLIGHT = [
  'Name: Flight',
  'Desc: Book a flight.',
  'SLOTs: [date]',
  'APIs:',
  '  - name: find_customer',
  '    response: [customer_id]',
  '  - name: checkAvailability',
  '    request: [date]',
  '    response: [is_air, seats_left]',
  '  - name: book',
  '    request: [date]',
  '    response: [booking_id]',
  '    precondition:',
  '      - find_customer',
  '      - checkAvailability.is_air == "true"',
  '      - checkAvailability.seats_left >= 1',
  'ANSWERs:',
  '  - name: booked',
  '    desc: Booked.',
  '    pre: "book, checkAvailability.is_air == \'true\'"',
  'Procedure: |',
  '  API.checkAvailability(date)',
  '  API.book(date)',
  '',
].join('\n');

describe('result conditions in a PDL file', () => {
  it('reads conditions among the names; their API becomes a precondition too', () => {
    const { pdl, problems } = parsed(FLIGHT);
    expect(problems).toEqual([]);
    const book = pdl.apis.find((api) => api.name === 'book');
    expect(book?.precondition).toEqual(['find_customer', 'checkAvailability']);
    expect(book?.conditions).toEqual([
      { api: 'checkAvailability', field: ['is_air'], op: '==', value: 'true' },
      { api: 'checkAvailability', field: ['seats_left'], op: '>=', value: 1 },
    ]);
    // A comma string may hold a condition, quotes and all.
    const booked = pdl.answers.find((answer) => answer.name === 'booked');
    expect(booked?.precondition).toEqual(['book', 'checkAvailability']);
    expect(booked?.conditions).toEqual([{ api: 'checkAvailability', field: ['is_air'], op: '==', value: 'true' }]);
    // A plain list has no conditions field at all.
    expect(pdl.apis[0]).not.toHaveProperty('conditions');
    expect(checkPdl(pdl)).toEqual([]);
  });

  it('keeps a comma inside a quoted value, and reads a condition quoted whole in a comma string', () => {
    const text = FLIGHT.replace(
      `    pre: "book, checkAvailability.is_air == 'true'"`,
      `    pre: "['book', 'checkAvailability.is_air != \\"a, b\\"']"`,
    );
    const { pdl, problems } = parsed(text);
    expect(problems).toEqual([]);
    expect(pdl.answers.find((answer) => answer.name === 'booked')?.conditions).toEqual([
      { api: 'checkAvailability', field: ['is_air'], op: '!=', value: 'a, b' },
    ]);
  });

  it('locates each bad condition at its item, and a field its API does not return as a warning', () => {
    const text = [
      'Name: Flight',
      'Desc: Book a flight.',
      'APIs:',
      '  - name: checkAvailability',
      '    response: [is_air]',
      '  - name: book',
      '    precondition:',
      '      - checkAvailability.is_air = "true"',
      '      - checkAvailability.is_air == yes',
      '      - checkAvailability.seats > "x"',
      '      - checkAvailability.is_ai == "true"',
      '      - checkAvailabilty.is_air == "true"',
      '      - checkAvailability.is_air == "true"',
      "      - checkAvailability.is_air == 'true'",
      'Procedure: API.book()',
      '',
    ].join('\n');
    const { pdl, problems } = parsed(text);
    expect(lines(problems)).toEqual([
      'error 8:9 APIs[1].precondition[0]: bad condition: "=" is not an operator; use ==, !=, <, <=, > or >=',
      'error 9:9 APIs[1].precondition[1]: bad condition: "yes" is not a value: quote text ("yes"), or write a number, true, false or null',
      'error 10:9 APIs[1].precondition[2]: bad condition: > compares numbers, got "x"',
      'warning 14:9 APIs[1].precondition[6]: lists the condition checkAvailability.is_air == "true" twice',
    ]);
    expect(lines(checkPdl(pdl))).toEqual([
      'error 12:9 APIs[1].precondition[4]: unknown API "checkAvailabilty" in the precondition of API "book" (did you mean "checkAvailability"?)',
      'warning 11:9 APIs[1].precondition[3]: the condition checkAvailability.is_ai == "true" reads "is_ai", which is not in the response of checkAvailability (is_air) (did you mean "is_air"?)',
    ]);
  });

  it('draws conditions: on the graph edge, in the text listing, as Mermaid edge labels and in the bot prompt', () => {
    const { pdl } = parsed(FLIGHT);
    expect(apiGraph(pdl).edges).toEqual([
      { from: 'find_customer', to: 'book' },
      { from: 'checkAvailability', to: 'book', conditions: ['is_air == "true"', 'seats_left >= 1'] },
    ]);
    expect(pdlText(pdl)).toContain(
      '       after: find_customer, checkAvailability.is_air == "true", checkAvailability.seats_left >= 1',
    );
    expect(pdlText(pdl)).toContain('  booked  (after: book, checkAvailability.is_air == "true")');
    const mermaid = pdlMermaid(pdl).split('\n');
    expect(mermaid).toContain('  api_find_customer --> api_book');
    expect(mermaid).toContain(
      '  api_checkAvailability -- "is_air == #34;true#34; and seats_left #62;= 1" --> api_book',
    );
    expect(mermaid).toContain('  api_checkAvailability -. "is_air == #34;true#34;" .-> answer_booked');
    expect(mermaid).toContain('  api_book -.-> answer_booked');

    const prompt = botSystemPrompt(pdl, []);
    expect(prompt).toContain(
      '- book(date) -> booking_id [preconditions: find_customer, checkAvailability.is_air == "true", checkAvailability.seats_left >= 1]',
    );
    const apis = readDialogBlock(prompt, 'apis') as { name: string; conditions?: unknown[] }[];
    expect(apis.find((api) => api.name === 'book')?.conditions).toHaveLength(2);
  });
});
