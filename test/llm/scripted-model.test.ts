import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WeftError, formatError, isAbortError } from '../../src/errors.js';
import type { ChatCall } from '../../src/llm/chat-model.js';
import { loadScriptedModel, parseScriptFile, scriptedModel, validateReplies } from '../../src/llm/scripted-model.js';

const ask = (content: string, system?: string): ChatCall => ({
  ...(system !== undefined ? { system } : {}),
  messages: [{ role: 'user', content }],
});

async function texts(model: ReturnType<typeof scriptedModel>, prompts: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const prompt of prompts) out.push((await model.generate(ask(prompt))).text);
  return out;
}

async function errorOf(promise: Promise<unknown>): Promise<WeftError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WeftError);
  return error as WeftError;
}

describe('scriptedModel', () => {
  it('answers with entries without `when` in order, consuming them', async () => {
    const model = scriptedModel([{ text: 'one' }, { text: 'two' }]);
    expect(await texts(model, ['a', 'b'])).toEqual(['one', 'two']);
    expect(model.remaining()).toBe(0);
  });

  it('answers a matching `when` entry before any entry without `when`', async () => {
    const model = scriptedModel([{ text: 'default 1' }, { when: 'special', text: 'S' }, { text: 'default 2' }]);
    expect(await texts(model, ['a special prompt', 'plain', 'plain again'])).toEqual(['S', 'default 1', 'default 2']);
  });

  it('takes the first unconsumed matching `when` entry in file order', async () => {
    const model = scriptedModel([
      { when: 'plan', text: 'plan A' },
      { when: 'plan', text: 'plan B' },
      { when: 'verify', text: 'ok', repeat: true },
    ]);
    expect(await texts(model, ['plan it', 'verify', 'plan again', 'verify'])).toEqual(['plan A', 'ok', 'plan B', 'ok']);
    expect(model.remaining()).toBe(1);
  });

  it('keeps `repeat` entries', async () => {
    const model = scriptedModel([{ text: 'forever', repeat: true }]);
    expect(await texts(model, ['1', '2', '3'])).toEqual(['forever', 'forever', 'forever']);
  });

  it('matches `/regex/flags` against system + messages joined by newlines', async () => {
    const model = scriptedModel([
      { when: '/^you are the verifier\\nCHECK/i', text: 'regex hit' },
      { when: '/a/b/c', text: 'substring with slashes' },
    ]);
    expect((await model.generate(ask('check this', 'You are the VERIFIER'))).text).toBe('regex hit');
    expect((await model.generate(ask('path /a/b/c here'))).text).toBe('substring with slashes');
  });

  it('ignores the g and y flags so matching is stateless', async () => {
    const model = scriptedModel([{ when: '/x/g', text: 'hit', repeat: true }]);
    expect(await texts(model, ['x', 'x', 'x'])).toEqual(['hit', 'hit', 'hit']);
  });

  it('fails with SCRIPT_EXHAUSTED naming the first line of the last user message', async () => {
    const model = scriptedModel([{ when: 'never', text: 'x' }], { id: 'scripted:test.json' });
    const call: ChatCall = {
      system: 'System prompt',
      messages: [
        { role: 'user', content: 'older' },
        { role: 'assistant', content: 'reply' },
        { role: 'user', content: '\n  <task>\nBuild a game\n</task>' },
      ],
    };
    const error = await errorOf(model.generate(call));
    expect(error.code).toBe('SCRIPT_EXHAUSTED');
    expect(error.message).toContain('"<task>"');
    expect(error.message).toContain('scripted:test.json');
  });

  it('records calls and estimates usage as characters / 4, rounded up', async () => {
    const model = scriptedModel([{ text: 'abcde' }]);
    const call = ask('12345', 'sys');
    const result = await model.generate(call);
    expect(model.calls).toEqual([call]);
    expect(result).toEqual({ text: 'abcde', usage: { inputTokens: 3, outputTokens: 2 }, model: 'scripted' });
    expect(model.kind).toBe('scripted');
    expect(model.id).toBe('scripted');
  });

  it('accepts a responder function', async () => {
    const model = scriptedModel((call) => `echo ${call.messages.at(-1)?.content}`);
    expect((await model.generate(ask('hi'))).text).toBe('echo hi');
    expect(model.remaining()).toBe(Number.POSITIVE_INFINITY);
  });

  it('rejects an aborted call without consuming a reply', async () => {
    const model = scriptedModel([{ text: 'one' }]);
    const controller = new AbortController();
    controller.abort();
    await expect(model.generate(ask('x'), controller.signal)).rejects.toSatisfy(isAbortError);
    expect(model.remaining()).toBe(1);
  });

  it('validates replies given in code', () => {
    expect(() => scriptedModel([{ text: 1 } as never])).toThrow(/bad scripted replies: expected a string/);
    try {
      scriptedModel([{ text: 'ok' }, { when: 'x' } as never]);
    } catch (error) {
      expect(formatError(error)).toMatch(/^replies\[1\]\.text: bad scripted replies: missing "text"/);
    }
    expect(() => validateReplies([{ text: 'x', when: '/(/' }])).toThrow(WeftError);
    expect(() => validateReplies('nope')).toThrow(/expected an array/);
  });
});

describe('parseScriptFile', () => {
  const located = (text: string): WeftError => {
    try {
      parseScriptFile(text, 'replies.json');
    } catch (error) {
      expect(error).toBeInstanceOf(WeftError);
      expect((error as WeftError).code).toBe('BAD_INPUT');
      return error as WeftError;
    }
    throw new Error('expected a BAD_INPUT error');
  };

  it('reads a valid file', () => {
    expect(parseScriptFile('{"replies": [{"when": "/x/i", "text": "a", "repeat": true}, {"text": "b"}]}')).toEqual([
      { when: '/x/i', text: 'a', repeat: true },
      { text: 'b' },
    ]);
  });

  it('locates bad JSON by line and column', () => {
    const error = located('{\n  "replies": [\n    {"text": "a",}\n  ]\n}');
    expect(error.location).toMatchObject({ file: 'replies.json', line: 3, column: 18 });
    expect(error.message).toMatch(/invalid JSON/);
  });

  it('reports a missing replies array', () => {
    expect(located('{"reply": []}').location).toMatchObject({ file: 'replies.json', line: 1, field: 'replies' });
    expect(located('{\n"replies": {}}').location).toMatchObject({ line: 2, field: 'replies' });
    expect(located('[]').location?.field).toBeUndefined();
  });

  it('reports an entry without text at the entry, and every problem as an issue', () => {
    const error = located(
      '{"replies": [\n  {"text": "ok"},\n  {"when": "x"},\n  {"text": "y", "when": "/[/"},\n  {"text": "z", "repeat": "yes"}\n]}',
    );
    expect(error.location).toMatchObject({ file: 'replies.json', line: 3, column: 3, field: 'replies[1].text' });
    expect(error.issues.map((issue) => [issue.field, issue.line])).toEqual([
      ['replies[1].text', 3],
      ['replies[2].when', 4],
      ['replies[3].repeat', 5],
    ]);
    expect(formatError(error)).toContain('replies.json:4:25 replies[2].when: bad regular expression');
  });

  it('rejects a non-string text and an empty when', () => {
    expect(located('{"replies": [{"text": 5}]}').location?.field).toBe('replies[0].text');
    expect(located('{"replies": [{"text": "a", "when": ""}]}').location?.field).toBe('replies[0].when');
  });
});

describe('loadScriptedModel', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-scripted-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads a JSON file with the scripted:<path> id', async () => {
    const file = join(dir, 'replies.json');
    await writeFile(file, JSON.stringify({ replies: [{ text: 'from file' }] }));
    const model = await loadScriptedModel(file);
    expect(model.id).toBe(`scripted:${file}`);
    expect((await model.generate(ask('x'))).text).toBe('from file');
    const error = await errorOf(model.generate(ask('again')));
    expect(error.code).toBe('SCRIPT_EXHAUSTED');
  });

  it('reports a bad JSON file with its path', async () => {
    const file = join(dir, 'bad.json');
    await writeFile(file, '{"replies": [{"when": "x"}]}');
    const error = await errorOf(loadScriptedModel(file));
    expect(error.location).toMatchObject({ file, line: 1, field: 'replies[0].text' });
  });

  it('loads .js scripts exporting an object, an array or a function', async () => {
    const objectFile = join(dir, 'object.js');
    await writeFile(objectFile, 'export default { replies: [{ text: "object" }] };');
    const arrayFile = join(dir, 'array.mjs');
    await writeFile(arrayFile, 'export default [{ when: "hi", text: "array" }];');
    const functionFile = join(dir, 'function.js');
    await writeFile(functionFile, 'export default (call) => "fn:" + call.messages[0].content;');
    await writeFile(join(dir, 'package.json'), '{"type": "module"}');
    expect((await (await loadScriptedModel(objectFile)).generate(ask('x'))).text).toBe('object');
    expect((await (await loadScriptedModel(arrayFile)).generate(ask('hi'))).text).toBe('array');
    expect((await (await loadScriptedModel(functionFile)).generate(ask('hey'))).text).toBe('fn:hey');
  });

  it('rejects a .js script with a bad export', async () => {
    const file = join(dir, 'bad-export.mjs');
    await writeFile(file, 'export default { replies: [{ txt: "typo" }] };');
    expect((await errorOf(loadScriptedModel(file))).location).toMatchObject({ file, field: 'replies[0].text' });
    const other = join(dir, 'other.mjs');
    await writeFile(other, 'export default 42;');
    expect((await errorOf(loadScriptedModel(other))).code).toBe('BAD_INPUT');
  });

  it('rejects missing files and other extensions', async () => {
    expect((await errorOf(loadScriptedModel(join(dir, 'missing.json')))).code).toBe('BAD_INPUT');
    expect((await errorOf(loadScriptedModel(join(dir, 'replies.yaml')))).message).toMatch(/\.json or \.js/);
  });
});

describe('scripted tool calls', () => {
  const TOOLS = [
    { name: 'get_order', description: 'One order.', inputSchema: { type: 'object' } },
    { name: 'refund', description: 'Refund an order.', inputSchema: { type: 'object' } },
  ];
  const withTools = (messages: ChatCall['messages']): ChatCall => ({ messages, tools: TOOLS });

  it('answers toolCalls (ids call_<n> numbered on from the conversation unless given) and reacts to tool results', async () => {
    const model = scriptedModel(
      parseScriptFile(
        JSON.stringify({
          replies: [
            { when: 'Result of tool get_order (call_1):\n{"status":"shipped"}', text: 'It shipped.' },
            {
              when: '"status":"lost"',
              text: 'Refunding.',
              toolCalls: [{ name: 'refund', args: { id: 'A' }, id: 'r-1' }],
            },
            { toolCalls: [{ name: 'get_order', args: { id: 'A' } }] },
            { toolCalls: [{ name: 'get_order', args: { id: 'B' } }, { name: 'no_such_tool' }] },
          ],
        }),
        'replies.json',
      ),
    );
    const question = { role: 'user' as const, content: 'Where are my orders?' };
    const first = await model.generate(withTools([question]));
    expect(first).toMatchObject({ text: '', toolCalls: [{ id: 'call_1', name: 'get_order', args: { id: 'A' } }] });

    const afterFirst: ChatCall['messages'] = [
      question,
      { role: 'assistant', content: '', toolCalls: first.toolCalls! },
      { role: 'tool', toolCallId: 'call_1', name: 'get_order', content: '{"status":"processing"}' },
    ];
    // The result does not match either `when`; the next default entry calls two tools, one that does not exist.
    const second = await model.generate(withTools(afterFirst));
    expect(second.toolCalls).toEqual([
      { id: 'call_2', name: 'get_order', args: { id: 'B' } },
      { id: 'call_3', name: 'no_such_tool', args: {} },
    ]);
    const lost = await model.generate(
      withTools([
        ...afterFirst,
        { role: 'assistant', content: '', toolCalls: second.toolCalls! },
        { role: 'tool', toolCallId: 'call_2', name: 'get_order', content: '{"status":"lost"}' },
        { role: 'tool', toolCallId: 'call_3', name: 'no_such_tool', content: 'unknown tool', isError: true },
      ]),
    );
    expect(lost).toMatchObject({ text: 'Refunding.', toolCalls: [{ id: 'r-1', name: 'refund', args: { id: 'A' } }] });
    expect(lost.usage.outputTokens).toBeGreaterThan(3);

    const shipped = await model.generate(
      withTools([
        question,
        { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'get_order', args: {} }] },
        { role: 'tool', toolCallId: 'call_1', name: 'get_order', content: '{"status":"shipped"}' },
      ]),
    );
    expect(shipped.text).toBe('It shipped.');
    expect(shipped.toolCalls).toBeUndefined();
  });

  it('refuses tool calls when the call offers no tools, naming the entry', async () => {
    const model = scriptedModel([{ toolCalls: [{ name: 'get_order' }] }], { file: 'replies.json' });
    const error = await errorOf(model.generate(ask('hi')));
    expect(error.code).toBe('BAD_INPUT');
    expect(error.message).toContain('calls get_order, but this call offers no tools');
    expect(error.location).toMatchObject({ file: 'replies.json', field: 'replies[0].toolCalls' });
    const none = scriptedModel([{ toolCalls: [{ name: 'get_order' }] }]);
    const noneError = await errorOf(
      none.generate({ ...withTools([{ role: 'user', content: 'x' }]), toolChoice: 'none' }),
    );
    expect(noneError.message).toContain('(toolChoice none)');
  });

  it('locates bad toolCalls in the file', () => {
    let error: WeftError | undefined;
    try {
      parseScriptFile(
        '{"replies": [\n  {"toolCalls": {"name": "x"}},\n  {"toolCalls": [{"args": {}}, {"name": "ok", "arguments": {}}]},\n  {"toolCalls": []}\n]}',
        'replies.json',
      );
    } catch (caught) {
      error = caught as WeftError;
    }
    expect(error?.location).toMatchObject({ file: 'replies.json', line: 2, field: 'replies[0].toolCalls' });
    expect(error!.issues.map((issue) => [issue.field, issue.line, issue.message])).toEqual([
      ['replies[0].toolCalls', 2, 'expected an array of { name, args?, id? }, got object'],
      ['replies[1].toolCalls[0].name', 3, 'missing "name" (the tool to call)'],
      ['replies[1].toolCalls[1].arguments', 3, 'unknown key "arguments" (a tool call has name, args and id)'],
      ['replies[2].toolCalls', 4, 'an empty "toolCalls" with no "text" answers nothing'],
    ]);
  });

  it('a responder function may answer tool calls; a bad answer is BAD_INPUT', async () => {
    const model = scriptedModel((call) =>
      call.messages.some((m) => m.role === 'tool') ? 'done' : { toolCalls: [{ name: 'get_order', args: { id: 'A' } }] },
    );
    const first = await model.generate(withTools([{ role: 'user', content: 'go' }]));
    expect(first.toolCalls).toEqual([{ id: 'call_1', name: 'get_order', args: { id: 'A' } }]);
    const bad = scriptedModel(() => ({ toolCalls: [{ nam: 'x' }] }) as never);
    expect((await errorOf(bad.generate(withTools([{ role: 'user', content: 'go' }])))).message).toContain(
      'missing "name"',
    );
  });
});

describe('scripted `when` on the latest tool results', () => {
  const TOOLS = [
    { name: 'approve_return', description: 'Approve a return.', inputSchema: { type: 'object' } },
    { name: 'get_order', description: 'One order.', inputSchema: { type: 'object' } },
  ];
  const question = { role: 'user' as const, content: 'Approve my return R-0001' };
  const afterCall = (...results: { name: string; content: string; isError?: true }[]): ChatCall => ({
    tools: TOOLS,
    messages: [
      question,
      {
        role: 'assistant',
        content: '',
        toolCalls: results.map((result, index) => ({ id: `call_${index + 1}`, name: result.name, args: {} })),
      },
      ...results.map((result, index) => ({ role: 'tool' as const, toolCallId: `call_${index + 1}`, ...result })),
    ],
  });
  const script = (): ReturnType<typeof scriptedModel> =>
    scriptedModel(
      parseScriptFile(
        JSON.stringify({
          replies: [
            { when: { tool: 'approve_return', toolError: '/HTTP 409/' }, text: 'Could not approve: {{toolError}}' },
            { when: { toolError: true }, text: 'Something failed: {{toolError}}' },
            { when: { tool: 'get_order', toolResult: '"status":"delivered"' }, text: 'It was delivered.' },
            { text: 'Approved.' },
          ],
        }),
        'replies.json',
      ),
    );

  it('answers a failed call with the entry whose toolError matches, the error in its text', async () => {
    const refused = await script().generate(
      afterCall({ name: 'approve_return', content: 'approve_return: HTTP 409: not requested\nmore', isError: true }),
    );
    expect(refused.text).toBe('Could not approve: approve_return: HTTP 409: not requested');
    // Another tool's failure, or another error, skips the first entry; `true` takes any failure.
    const other = await script().generate(
      afterCall({ name: 'approve_return', content: 'approve_return: HTTP 500: down', isError: true }),
    );
    expect(other.text).toBe('Something failed: approve_return: HTTP 500: down');
  });

  it('a success goes to the default entry, and toolResult matches a successful result only', async () => {
    expect(
      (await script().generate(afterCall({ name: 'approve_return', content: '{"status":"approved"}' }))).text,
    ).toBe('Approved.');
    const delivered = await script().generate(
      afterCall(
        { name: 'approve_return', content: '{"status":"approved"}' },
        { name: 'get_order', content: '{"status":"delivered"}' },
      ),
    );
    expect(delivered.text).toBe('It was delivered.');
    const failedWithThatText = await script().generate(
      afterCall({ name: 'get_order', content: '"status":"delivered" HTTP 409', isError: true }),
    );
    expect(failedWithThatText.text).toBe('Something failed: "status":"delivered" HTTP 409');
  });

  it('looks only at the results after the last reply: an earlier failure does not match', async () => {
    const model = script();
    const earlier = afterCall({ name: 'approve_return', content: 'approve_return: HTTP 409: x', isError: true });
    const later: ChatCall = {
      ...earlier,
      messages: [...earlier.messages, { role: 'assistant', content: 'Sorry.' }, { role: 'user', content: 'Try again' }],
    };
    expect((await model.generate(later)).text).toBe('Approved.');
  });

  it('combines prompt with the result conditions, and a string when still matches the whole prompt', async () => {
    const model = scriptedModel([
      { when: { prompt: 'R-0002', toolError: true }, text: 'R-0002 failed' },
      { when: { prompt: 'R-0001', toolError: true }, text: 'R-0001 failed' },
      { when: 'Error from tool approve_return', text: 'old style' },
    ]);
    const failed = afterCall({ name: 'approve_return', content: 'HTTP 409', isError: true });
    expect((await model.generate(failed)).text).toBe('R-0001 failed');
    expect((await model.generate(failed)).text).toBe('old style');
  });

  it('locates a bad when by file, line and field', () => {
    let error: WeftError | undefined;
    try {
      parseScriptFile(
        [
          '{"replies": [',
          '  {"text": "a", "when": {"toolEror": "x"}},',
          '  {"text": "b", "when": {"toolError": "/(/"}},',
          '  {"text": "c", "when": {"toolError": true, "toolResult": "ok"}},',
          '  {"text": "d", "when": {"tool": 3}},',
          '  {"text": "e", "when": {}},',
          '  {"text": "f", "when": ["x"]},',
          '  {"text": "g", "when": {"toolResult": true}}',
          ']}',
        ].join('\n'),
        'replies.json',
      );
    } catch (caught) {
      error = caught as WeftError;
    }
    expect(error?.code).toBe('BAD_INPUT');
    expect(error?.location).toMatchObject({ file: 'replies.json', line: 2, field: 'replies[0].when.toolEror' });
    expect(error!.issues.map((issue) => [issue.field, issue.line])).toEqual([
      ['replies[0].when.toolEror', 2],
      ['replies[1].when.toolError', 3],
      ['replies[2].when.toolResult', 4],
      ['replies[3].when.tool', 5],
      ['replies[4].when', 6],
      ['replies[5].when', 7],
      ['replies[6].when.toolResult', 8],
    ]);
    expect(error!.issues[0]!.message).toContain('unknown key "toolEror"');
    expect(error!.issues[1]!.message).toContain('bad regular expression');
    expect(formatError(error!)).toContain('replies.json:2');
  });
});
