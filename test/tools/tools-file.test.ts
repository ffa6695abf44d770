/**
 * Tools files: every problem reported at once with file:line:column and field; module, http and mcp sources loaded
 * into one set (MCP entries checked up to the config the opener receives); names unique across sources.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { formatError, WeftError } from '../../src/errors.js';
import { callTool } from '../../src/tools/call-tool.js';
import type { McpServerConfig } from '../../src/tools/mcp-config.js';
import { parseToolsSection } from '../../src/tools/parse-tools-section.js';
import type { ToolSet } from '../../src/tools/tool.js';
import { loadToolsFile } from '../../src/tools/tools-file.js';
import { readStructuredSource } from '../../src/text/read-structured-source.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/tools/', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'weft-tools-file-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let files = 0;
function write(text: string, extension = 'yaml'): string {
  const file = join(scratch, `tools-${(files += 1)}.${extension}`);
  writeFileSync(file, text);
  return file;
}

async function failure(promise: Promise<unknown>): Promise<WeftError> {
  try {
    await promise;
  } catch (error) {
    return error as WeftError;
  }
  throw new Error('expected a failure');
}

/** An MCP opener that records the configs it gets and serves one fake tool per server. */
function recordingOpener() {
  const configs: McpServerConfig[] = [];
  let closed = 0;
  const open = async (config: McpServerConfig): Promise<ToolSet> => {
    configs.push(config);
    return {
      tools: [
        {
          name: `${config.name}_echo`,
          description: 'echo',
          inputSchema: { type: 'object' },
          source: `mcp ${config.name} (${config.transport.type})`,
          call: async (args) => args,
        },
      ],
      close: async () => {
        closed += 1;
      },
    };
  };
  return { open, configs, closed: () => closed };
}

describe('loadToolsFile', () => {
  it('loads http, module and mcp sources into one set; close() closes every source', async () => {
    const mathPath = resolve(FIXTURES, 'math-tools.mjs');
    const file = write(`
allowHosts: [127.0.0.1, "localhost:4200"]
tools:
  - kind: http
    name: get_order
    description: One order.
    url: http://127.0.0.1:4100/orders/{order_id}
    input: { type: object, properties: { order_id: { type: string } }, required: [order_id] }
    maxResultBytes: 4000
  - kind: module
    path: ${mathPath}
    exports: [add, roundIt]
  - kind: mcp
    name: files
    command: node
    args: [server.mjs, "--token=\${env:FILES_TOKEN}"]
    env: { KEY: "\${env:FILES_TOKEN}" }
    include: [read_file]
    idempotent: [read_file]
    timeoutMs: 5000
    maxResultBytes: 2000
  - kind: mcp
    name: remote
    url: http://localhost:4200/mcp
    headers: { Authorization: "Bearer \${env:FILES_TOKEN}" }
`);
    const opener = recordingOpener();
    const set = await loadToolsFile(file, { env: { FILES_TOKEN: 'ft-1' }, openMcp: opener.open });
    expect(set.tools.map((tool) => tool.name)).toEqual(['get_order', 'add', 'round', 'files_echo', 'remote_echo']);
    expect(set.tools[1]?.source).toBe(`module ${mathPath}#add`);
    expect(set.tools.map((tool) => tool.maxResultBytes)).toEqual([4000, undefined, undefined, undefined, undefined]);
    expect(await callTool(set.tools[1]!, { a: 2, b: 3 })).toMatchObject({ ok: true, result: { sum: 5 } });
    expect([...opener.configs].sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      {
        name: 'files',
        transport: {
          type: 'stdio',
          command: 'node',
          args: ['server.mjs', '--token=ft-1'],
          env: { KEY: 'ft-1' },
          cwd: scratch,
        },
        include: ['read_file'],
        idempotent: ['read_file'],
        timeoutMs: 5000,
        maxResultBytes: 2000,
        declaredAt: `${file}:13:5`,
      },
      {
        name: 'remote',
        transport: { type: 'http', url: 'http://localhost:4200/mcp', headers: { Authorization: 'Bearer ft-1' } },
        declaredAt: `${file}:22:5`,
      },
    ]);
    await set.close();
    await set.close();
    expect(opener.closed()).toBe(2);
  });

  it('reports every problem at once, each with file:line:column and field, secrets never shown', async () => {
    const mathPath = resolve(FIXTURES, 'math-tools.mjs');
    const file = write(`allowHosts: [127.0.0.1]
tool_list: []
tools:
  - kind: htp
    name: a
  - kind: http
    name: get_order
    descripton: typo
    url: http://127.0.0.1:4100/orders/{orderId}
    input: { type: object, properties: { order_id: { type: strin } }, required: [order_id] }
  - kind: http
    name: get_order
    description: twice
    url: http://example.com/x
  - kind: http
    name: with_env
    description: env
    url: http://127.0.0.1/x/{orderId}
    input: { type: object, properties: { order_id: { type: string } }, required: [order_id] }
    headers: { Authorization: "Bearer \${env:UNSET_TOKEN}", X-Other: "\${env:SET_TOKEN}" }
  - kind: module
    path: ${mathPath}
    exports: [add]
  - kind: module
    path: ${mathPath}
    exports: [divide, subtract]
  - kind: mcp
    name: files
    command: ./no-such-server-binary
  - kind: http
    name: add
    description: clashes with the module's add
    url: http://127.0.0.1/add
`);
    const opener = recordingOpener();
    const error = await failure(loadToolsFile(file, { env: { SET_TOKEN: 'set-secret-value' }, openMcp: opener.open }));
    expect(error.code).toBe('BAD_INPUT');
    const text = formatError(error);
    const lines = text.split('\n');
    expect(lines[0]).toBe(`${file}: invalid tools file: 12 problems`);
    const expected = [
      `${file}:2:1 tool_list: unknown field "tool_list"; allowed: allowHosts, tools`,
      `${file}:4:5 tools[0].kind: unknown kind "htp" (did you mean "http"?); one of: http, module, mcp`,
      `${file}:6:5 tools[1].description: missing required field "description"`,
      `${file}:8:5 tools[1].descripton: unknown field "descripton" (did you mean "description"?)`,
      `${file}:10:5 tools[1].input: is not a valid JSON Schema: schema is invalid: data/properties/order_id/type`,
      `${file}:12:5 tools[2].name: duplicate tool name "get_order" (also tools[1])`,
      `${file}:14:5 tools[2].url: the host of http://example.com/x (example.com) is not on allowHosts (127.0.0.1)`,
      `${file}:18:5 tools[3].url: the URL uses argument "orderId" is not an argument in input.properties (did you mean "order_id"?)`,
      `${file}:20:16 tools[3].headers.Authorization: environment variable UNSET_TOKEN is not set`,
      `${file}:26:23 tools[5].exports[1]: Tools module ${mathPath} has no export "subtract" (its tools: add, divide, roundIt)`,
      `${file}:29:5 tools[6].command: MCP server files: command "./no-such-server-binary" not found`,
      `${file}:31:5 tools[7].name: duplicate tool name "add": http`,
    ];
    for (const line of expected) expect(text).toContain(line);
    expect(text).not.toContain('set-secret-value');
    // The file had problems: no MCP server was started.
    expect(opener.configs).toHaveLength(0);
  });

  it('reads JSON too, and locates its problems', async () => {
    const file = write(
      JSON.stringify(
        {
          allowHosts: ['127.0.0.1'],
          tools: [{ kind: 'http', name: 'x y', description: 'd', url: 'ftp://127.0.0.1/x' }],
        },
        null,
        2,
      ),
      'json',
    );
    const text = formatError(await failure(loadToolsFile(file)));
    expect(text).toContain(`${file}:8:7 tools[0].name: "x y" must be 1-64 letters, digits, _ or -`);
    expect(text).toContain(`${file}:10:7 tools[0].url: ftp://127.0.0.1/x: only http and https URLs`);
  });

  it('refuses an http tool when no allowHosts is given, saying what to add', async () => {
    const file = write(`tools:
  - { kind: http, name: x, description: d, url: "http://10.0.0.5:8080/x" }
`);
    expect(formatError(await failure(loadToolsFile(file)))).toContain(
      'tools[0].url: http://10.0.0.5:8080/x reaches 10.0.0.5:8080, but no allowHosts list is given: add allowHosts: ["10.0.0.5:8080"] beside tools',
    );
  });

  it('refuses arguments in the host, optional URL arguments, a GET body and bad mappings', async () => {
    const file = write(`allowHosts: [127.0.0.1]
tools:
  - kind: http
    name: a
    description: d
    url: http://{host}/x
    input: { type: object, properties: { host: { type: string } }, required: [host] }
  - kind: http
    name: b
    description: d
    url: http://127.0.0.1/orders/{id}
    input: { type: object, properties: { id: { type: string }, q: { type: string } } }
    query: { q: nope }
    body: [q]
  - kind: http
    name: c
    description: d
    method: FETCH
    url: http://127.0.0.1/c
    timeoutMs: -5
    secretArgs: [card]
`);
    const text = formatError(await failure(loadToolsFile(file)));
    expect(text).toContain('tools[0].url: http://{host}/x: arguments may stand in the path and query only');
    expect(text).toContain('tools[1].url: the URL uses argument "id": list it in input.required');
    expect(text).toContain('tools[1].query.q: query parameter maps "nope" is not an argument in input.properties');
    expect(text).toContain('tools[1].body: a GET request has no body; use query');
    expect(text).toContain('tools[2].method: expected one of GET, POST, PUT, PATCH, DELETE, got "FETCH"');
    expect(text).toContain('tools[2].timeoutMs: expected a whole number from 1 to 3600000, got -5');
    expect(text).toContain('tools[2].secretArgs[0]: secret argument "card" is not an argument in input.properties');
  });

  it('checks MCP entries: command or url, not both, and their own fields', async () => {
    const file = write(`allowHosts: [127.0.0.1]
tools:
  - { kind: mcp, name: a }
  - { kind: mcp, name: b, command: node, url: "http://127.0.0.1/mcp" }
  - { kind: mcp, name: c, url: "http://127.0.0.1/mcp", args: [x] }
  - { kind: mcp, name: d, url: "http://evil.example/mcp" }
  - { kind: mcp, name: a, command: node }
`);
    const text = formatError(await failure(loadToolsFile(file, { openMcp: recordingOpener().open })));
    expect(text).toContain('tools[0]: an mcp entry needs "command" (a server over stdio) or "url" (Streamable HTTP)');
    expect(text).toContain('tools[1].url: give "command" (stdio) or "url" (Streamable HTTP), not both');
    expect(text).toContain('tools[2].args: "args" is for MCP servers over stdio (command)');
    expect(text).toContain('tools[3].url: the host of http://evil.example/mcp (evil.example) is not on allowHosts');
    expect(text).toContain('tools[4].name: duplicate MCP server name "a" (also tools[0])');
  });

  it('names a missing or unreadable file, refuses deep nesting and a non-object', async () => {
    expect(formatError(await failure(loadToolsFile(join(scratch, 'nope.yaml'))))).toBe(
      `${join(scratch, 'nope.yaml')}: cannot read the tools file: no such file`,
    );
    expect(formatError(await failure(loadToolsFile(scratch)))).toContain('it is a folder');
    // A named pipe without a writer: reading it would never end (and hold up the process's exit).
    const fifo = join(scratch, 'fifo.yaml');
    execFileSync('mkfifo', [fifo]);
    expect(formatError(await failure(loadToolsFile(fifo)))).toBe(
      `${fifo}: cannot read the tools file: it is not a regular file`,
    );
    const deep = write(`tools: ${'['.repeat(5000)}${']'.repeat(5000)}\n`);
    expect(formatError(await failure(loadToolsFile(deep)))).toContain('invalid YAML: nested deeper than 100 levels');
    const list = write('- kind: http\n');
    expect(formatError(await failure(loadToolsFile(list)))).toContain('a tools file is an object with "tools"');
  });

  it('stops at 500 entries', async () => {
    const entries = Array.from({ length: 501 }, (_, index) => `  - { kind: module, path: m${index}.mjs }`).join('\n');
    const file = write(`tools:\n${entries}\n`);
    expect(formatError(await failure(loadToolsFile(file)))).toContain('tools: lists 501 entries; at most 500');
  });
});

describe('parseToolsSection', () => {
  it('checks a tools: section embedded in another document, locating it there', () => {
    const text = `task: something
roles:
  researcher: { prompt: p }
allowHosts: [127.0.0.1]
tools:
  - { kind: http, name: ok, description: fine, url: "http://127.0.0.1/ok" }
  - { kind: http, name: bad, description: d, url: "http://127.0.0.1/x", headers: { A: "\${env:NOPE}" } }
`;
    const read = readStructuredSource(text, 'plan.yaml');
    if ('issues' in read) throw new Error('unexpected');
    const value = read.value as Record<string, unknown>;
    const parsed = parseToolsSection({
      tools: value.tools,
      allowHosts: value.allowHosts,
      positionOf: read.positionOf,
      file: 'plan.yaml',
      baseDir: scratch,
      env: {},
    });
    expect(parsed.sources.map((source) => source.kind)).toEqual(['http']);
    expect(parsed.issues).toEqual([
      {
        file: 'plan.yaml',
        line: 7,
        column: 84,
        field: 'tools[1].headers.A',
        message: 'environment variable NOPE is not set',
      },
    ]);
  });
});

describe('header values', () => {
  it('refuses a header value fetch would reject, naming the header and never the value', async () => {
    const file = write(`allowHosts: [127.0.0.1]
tools:
  - kind: http
    name: x
    description: d
    url: http://127.0.0.1/x
    headers: { Authorization: "\${env:BAD}", "Bad Name": y }
`);
    const text = formatError(await failure(loadToolsFile(file, { env: { BAD: 'tok\u0100secret' } })));
    expect(text).toContain(
      'tools[0].headers.Authorization: is not a valid header value (after ${env:…} is resolved): no line breaks, NUL or characters past U+00FF',
    );
    expect(text).toContain('tools[0].headers["Bad Name"]: "Bad Name" is not a header name');
    expect(text).not.toContain('secret');
  });
});

describe('opening sources', () => {
  it('closes what it opened when another source fails, and reports the opener failure at its entry', async () => {
    const mathPath = resolve(FIXTURES, 'math-tools.mjs');
    const file = write(`tools:
  - { kind: mcp, name: good, command: node }
  - { kind: mcp, name: broken, command: node }
  - { kind: module, path: "${mathPath}", exports: [nope] }
`);
    const recording = recordingOpener();
    const open = async (config: McpServerConfig): Promise<ToolSet> => {
      if (config.name === 'broken') throw new Error('MCP server broken exited with code 1 before listing its tools');
      return recording.open(config);
    };
    const text = formatError(await failure(loadToolsFile(file, { openMcp: open })));
    expect(text).toContain(`${file}:3:5 tools[1]: MCP server broken exited with code 1 before listing its tools`);
    expect(text).toContain(`${file}:4:`);
    expect(text).toContain('tools[2].exports[0]: Tools module');
    expect(recording.configs.map((config) => config.name)).toEqual(['good']);
    expect(recording.closed()).toBe(1);
  });
});

describe('giving up while servers start', () => {
  it('an abort (Ctrl-C, SIGTERM) while an MCP server hangs at start is ABORTED, not a problem of the file', async () => {
    const server = join(scratch, 'hangs-at-start.mjs');
    writeFileSync(server, 'setInterval(() => {}, 1000);\n');
    const mathPath = resolve(FIXTURES, 'math-tools.mjs');
    const file = write(`tools:
  - { kind: mcp, name: stuck, command: node, args: ["${server}"] }
  - { kind: module, path: "${mathPath}", exports: [add] }
`);
    const controller = new AbortController();
    const loading = loadToolsFile(file, { signal: controller.signal, mcpStartTimeoutMs: 60_000 });
    setTimeout(() => controller.abort(new WeftError('ABORTED', 'terminated (SIGTERM)')), 100);
    const error = await failure(loading);
    expect(error.code).toBe('ABORTED');
    expect(error.message).toBe('terminated (SIGTERM)');
  });
});

describe('a tools section inside another document (a plan)', () => {
  it("ignores the document's own keys, reads its tools located in it, and gives none when it has no section", async () => {
    const mathPath = resolve(FIXTURES, 'math-tools.mjs');
    const plan = write(`task: add things
subtasks: [{ id: a, objective: add, agent: calc }]
tools:
  - kind: module
    path: ${mathPath}
    exports: [add]
`);
    const set = await loadToolsFile(plan, { embedded: true });
    expect(set.tools.map((tool) => tool.name)).toEqual(['add']);
    await set.close();
    // The same document as a tools file proper: its plan keys are unknown there.
    const strict = (await loadToolsFile(plan).catch((caught) => caught)) as WeftError;
    expect(formatError(strict)).toMatch(/unknown field "task"/);
    const bare = await loadToolsFile(write('task: nothing to call\nsubtasks: []\n'), { embedded: true });
    expect(bare.tools).toEqual([]);
    const broken = write('task: t\ntools:\n  - kind: htp\n');
    const error = (await loadToolsFile(broken, { embedded: true }).catch((caught) => caught)) as WeftError;
    expect(formatError(error)).toContain(`${broken}:3:5 tools[0].kind: unknown kind "htp"`);
  });
});
