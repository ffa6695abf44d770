/**
 * A `kind: simulated` tool in a run: the run's own model answers it (through the run's meter: counted and
 * recorded like every call of the run), its calls are marked simulated in the log and in `weft show`, and without
 * a model to answer it (`weft tools call`) it refuses plainly.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli as weft } from '../cli/cli-harness.js';
import type { Workflow } from '../../src/graph/workflow.js';
import { createModel } from '../../src/llm/resolve-model.js';
import { runTask } from '../../src/run/run-task.js';
import { openRunStore } from '../../src/store/open-store.js';
import { loadToolsFile } from '../../src/load-tools-file.js';
import { formatError, WeftError } from '../../src/errors.js';
import { bindSimulatedTools } from '../../src/tools/simulated-api.js';
import { runEvents } from '../../src/run/run-events.js';

const TOOLS = 'test/fixtures/simulated-tools/tools.yaml';

const PLAN: Workflow = {
  task: 'Find a room in Lisbon on Monday.',
  roles: [{ name: 'booker', prompt: 'You find rooms.', kind: 'llm', tools: ['check_rooms'] }],
  subtasks: [
    {
      id: 'find',
      objective: 'Check whether hotel H-LIS has a room on Monday.',
      agent: 'booker',
      dependsOn: [],
      status: 'not started',
      attempts: 0,
    },
  ],
};

const REPLIES = {
  replies: [
    // The simulated API's server: only a prompt that shows the declaration and the request gets this answer.
    {
      when: '/<simulated-api>[\\s\\S]*"check_rooms"[\\s\\S]*<simulated-request>[\\s\\S]*"H-LIS"/',
      text: '{"status": 200, "data": {"has_room": true}}',
    },
    { when: "You are Weft's verifier", text: '{"verdict":"accept","reason":"done"}', repeat: true },
    {
      when: '/objective>\\s*Check whether/',
      toolCalls: [{ name: 'check_rooms', args: { hotel: 'H-LIS', day: 'Monday' } }],
    },
    { when: '/Result of tool check_rooms[\\s\\S]*has_room[\\s\\S]*true/', text: 'H-LIS has a room on Monday.' },
  ],
};

describe('a simulated tool in a run', () => {
  it("is answered by the run's model, recorded as simulated, and its answer reaches the agent", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-simulated-run-'));
    writeFileSync(join(dir, 'replies.json'), JSON.stringify(REPLIES));
    const model = await createModel(`scripted:${join(dir, 'replies.json')}`);
    const tools = await loadToolsFile(TOOLS);
    const store = await openRunStore({ home: dir });
    try {
      const result = await runTask({
        task: PLAN.task,
        plan: PLAN,
        model,
        store,
        home: dir,
        runId: 'sim',
        tools: { available: tools.tools },
        run: { strategy: 'none' },
      });
      expect(result.status).toBe('completed');
      const events = await runEvents(store, 'sim');
      const call = events.find((event) => event.type === 'tool-call');
      expect(call).toMatchObject({ name: 'check_rooms', simulated: true, args: { hotel: 'H-LIS', day: 'Monday' } });
      expect(events.find((event) => event.type === 'tool-result')).toMatchObject({
        ok: true,
        result: { has_room: true },
      });
      // The model call that answered it is one of the run's, with its purpose.
      const purposes = events.flatMap((event) => (event.type === 'model-call' ? [event.purpose] : []));
      expect(purposes).toContain('simulate-api');
      const shown = await weft(['show', 'sim', '--home', dir]);
      expect(shown.stdout).toContain('check_rooms [simulated] {"hotel":"H-LIS","day":"Monday"} → ok');
    } finally {
      await store.close();
      await tools.close();
    }
  });

  it("keeps its entry's limits once a model is bound to it", async () => {
    const tools = await loadToolsFile(TOOLS);
    try {
      const [bound] = bindSimulatedTools(tools.tools, { model: await createModel('sim:seed=1') });
      expect(bound).toMatchObject({ simulated: true, timeoutMs: 20_000, maxResultBytes: 5_000 });
      expect(bound!.call).not.toBe(tools.tools[0]!.call);
    } finally {
      await tools.close();
    }
  });

  it('refuses to be called with no model to answer it, and a bad entry is a located error', async () => {
    const result = await weft(['tools', 'call', 'check_rooms', '--tools', TOOLS, '--args', '{"hotel": "H"}']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('check_rooms is simulated');
    const dir = mkdtempSync(join(tmpdir(), 'weft-simulated-bad-'));
    const file = join(dir, 'tools.yaml');
    writeFileSync(
      file,
      ['tools:', '  - kind: simulate', '    name: a', '  - kind: simulated', '    name: b', '    output: 3'].join('\n'),
    );
    const error = await loadToolsFile(file).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(WeftError);
    expect(formatError(error as WeftError)).toBe(
      [
        `${file}: invalid tools file: 3 problems`,
        `  - ${file}:2:5 tools[0].kind: unknown kind "simulate" (did you mean "simulated"?); one of: http, module, mcp, workflow, simulated`,
        `  - ${file}:4:5 tools[1].description: missing required field "description"`,
        `  - ${file}:6:5 tools[1].output: expected a JSON Schema object of the result, got a number`,
      ].join('\n'),
    );
  });
});
