/**
 * A `sim:` model made through the library, in a fresh process (no test setup): after `import 'weft'` it answers
 * every engine's purpose, while the light `weft/core` alone registers no engine's responder and says what to do.
 */
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from './weft-cli.js';

function runScript(script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: ROOT, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? -1) : 0, stdout, stderr }),
    );
  });
}

// Purposes another layer answers by wrapping the model (distillation, simulated APIs), not by a responder.
const WRAPPED = ['solve', 'distill', 'simulate-api'];

describe('the sim model through the library', () => {
  it("answers every engine's purpose after import 'weft'", async () => {
    const { code, stdout, stderr } = await runScript(`
      const weft = await import('./src/index.ts');
      const { simResponderPurposes } = await import('./src/test.ts');
      const model = await weft.createModel('sim:seed=5');
      const answers = {};
      for (const purpose of Object.values(weft.CALL_PURPOSES)) {
        if (${JSON.stringify(WRAPPED)}.includes(purpose)) continue;
        const reply = await model.generate({ messages: [{ role: 'user', content: '<task>write a poem</task>' }], tag: { purpose, key: 'k' } });
        answers[purpose] = reply.text.length > 0 || (reply.toolCalls ?? []).length > 0;
      }
      console.log(JSON.stringify({ answers, purposes: simResponderPurposes() }));
    `);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const { answers, purposes } = JSON.parse(stdout) as { answers: Record<string, boolean>; purposes: string[] };
    expect(Object.keys(answers).sort()).toEqual(
      [
        'answer',
        'converse',
        'execute',
        'judge',
        'other',
        'plan',
        'rank',
        'simulate-user',
        'update',
        'verify',
        'worfbench',
      ].sort(),
    );
    expect(Object.values(answers).every(Boolean)).toBe(true);
    expect(purposes).toEqual(Object.keys(answers).sort());
  });

  it("refuses an engine's purpose through weft/core alone, saying how to register a responder", async () => {
    const { code, stdout, stderr } = await runScript(`
      const core = await import('./src/core.ts');
      const model = await core.createModel('sim:seed=5');
      const untagged = await model.generate({ messages: [{ role: 'user', content: 'hi' }] });
      const failed = await model.generate({ messages: [{ role: 'user', content: 'hi' }], tag: { purpose: 'plan' } }).catch((e) => e);
      console.log(JSON.stringify({ untagged: untagged.text, code: failed.code, message: failed.message }));
    `);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as { untagged: string; code: string; message: string };
    expect(result.untagged).toBe('sim reply');
    expect(result.code).toBe('MODEL_CONFIG');
    expect(result.message).toContain('no responder for purpose "plan"');
    expect(result.message).toContain("importing 'weft' registers");
  });
});
