/**
 * `weft run --otel` as a user runs it, in a child process, against a real OTLP/HTTP receiver: the spans arrive and
 * the process exits; a run cancelled by SIGINT still flushes its spans (the run span says `cancelled`); a dead
 * collector does not keep the process from exiting with the run's code.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deadPort, type OtlpReceiver, startOtlpReceiver } from '../cli/otlp-receiver.js';
import { ROOT } from '../e2e/weft-cli.js';

let receiver: OtlpReceiver;
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await receiver.close();
});

interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `weft <args>` in a child process; `onStderr` may signal it. */
function weft(
  args: readonly string[],
  onStderr?: (text: string, kill: (signal: NodeJS.Signals) => void) => void,
): Promise<Exit> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
  delete env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    onStderr?.(stderr, (signal) => child.kill(signal));
  });
  return new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

const home = () => mkdtempSync(join(tmpdir(), 'weft-otel-long-'));

describe('weft run --otel in a child process', () => {
  it('exports the run and exits', async () => {
    const exit = await weft([
      'run',
      'write a report',
      '--model',
      'sim:seed=4,tasks=6',
      '--home',
      home(),
      '--otel',
      receiver.url,
      '--json',
    ]);
    expect(exit.code, exit.stderr).toBe(0);
    const { runId } = JSON.parse(exit.stdout) as { runId: string };
    const root = receiver.spans.find((span) => span.name === 'invoke_workflow');
    expect(root?.attributes['gen_ai.conversation.id']).toBe(runId);
    expect(receiver.spans.filter((span) => span.name.startsWith('invoke_agent ')).length).toBeGreaterThanOrEqual(6);
  }, 120_000);

  it('a run cancelled by SIGINT still delivers its spans before the process exits', async () => {
    let sent = false;
    const exit = await weft(
      [
        'run',
        'write a story in six parts',
        '--model',
        'sim:seed=8,tasks=6,latency=fixed(400)',
        '--home',
        home(),
        '--otel',
        receiver.url,
        '--json',
      ],
      (text, kill) => {
        if (!sent && /start/.test(text.split('tracing to')[1] ?? '')) {
          sent = true;
          kill('SIGINT');
        }
      },
    );
    expect(sent).toBe(true);
    expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 1, signal: null });
    const root = receiver.spans.find((span) => span.name === 'invoke_workflow');
    expect(root?.attributes['weft.run.status']).toBe('cancelled');
    // The attempts cut short are there too, ended as errors.
    expect(receiver.spans.some((span) => span.name.startsWith('invoke_agent ') && span.status.code === 2)).toBe(true);
  }, 120_000);

  it("a dead collector: the process still exits, with the run's exit code and one warning", async () => {
    const port = await deadPort();
    const exit = await weft([
      'run',
      'write a report',
      '--model',
      'sim:seed=4',
      '--home',
      home(),
      '--otel',
      `http://127.0.0.1:${port}`,
    ]);
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stderr).toMatch(/traces not delivered/);
  }, 120_000);
});
