/**
 * Runs the checks of task success a run was started with (`--check`, `--judge-model`; docs/algorithms.md#fault-
 * injection) once its subtasks are done, and records each as a `task-check` event. Each check has the same deadline
 * (`timeoutMs`) and stops on cancel; a check that cannot run is a failed check that says why, never a crash of the run.
 */
import type { ChatModel } from '../llm/chat-model.js';
import { redactModelSpec } from '../llm/model-spec.js';
import { anySignal } from '../llm/timeout.js';
import { runCheckCommand } from './check-command.js';
import type { EventWithoutTime } from './run-state.js';
import { judgeTask } from './judge-task.js';
import type { TaskCheckSettings } from './run-settings.js';

export interface TaskCheckInput {
  readonly settings: TaskCheckSettings;
  readonly task: string;
  /** The run's result text (its last subtasks' outputs); empty when there is none. */
  readonly result: string;
  readonly runDir: string;
  readonly artifactsDir: string;
  /** Artifact paths relative to the artifacts folder. */
  readonly artifacts: readonly string[];
  readonly createModel: (spec: string) => Promise<ChatModel>;
  readonly signal?: AbortSignal;
  readonly emit: (event: EventWithoutTime) => void;
}

export async function runTaskChecks(input: TaskCheckInput): Promise<void> {
  const { settings } = input;
  if (settings.command !== undefined) {
    const result = await runCheckCommand({
      command: settings.command,
      cwd: input.artifactsDir,
      timeoutMs: settings.timeoutMs,
      env: { WEFT_RUN_DIR: input.runDir, WEFT_ARTIFACTS: input.artifactsDir },
      ...(input.signal ? { signal: input.signal } : {}),
    });
    input.emit({
      type: 'task-check',
      method: 'command',
      by: settings.command,
      passed: result.passed,
      detail: result.output,
      exitCode: result.exitCode,
      timedOut: result.timedOut,
      ...(result.droppedChars > 0 ? { droppedChars: result.droppedChars } : {}),
    });
  }
  if (settings.judgeModel !== undefined) {
    const by = redactModelSpec(settings.judgeModel);
    const deadline = AbortSignal.timeout(settings.timeoutMs);
    try {
      const model = await input.createModel(settings.judgeModel);
      const verdict = await judgeTask(
        model,
        { task: input.task, result: input.result, artifacts: input.artifacts },
        anySignal(input.signal, deadline),
      );
      input.emit({ type: 'task-check', method: 'judge', by, passed: verdict.passed, detail: verdict.reason });
    } catch (error) {
      const timedOut = deadline.aborted && !input.signal?.aborted;
      const why = timedOut
        ? `stopped at the check's deadline of ${settings.timeoutMs} ms`
        : `the judge could not answer: ${error instanceof Error ? error.message : String(error)}`;
      input.emit({ type: 'task-check', method: 'judge', by, passed: false, detail: why, timedOut });
    }
  }
}
