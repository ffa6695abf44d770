/**
 * `weft mcp`: Weft as an MCP server over stdio (issue 15). Tools plan a task, start a run in this process, report
 * its status, show its document and execute an executable workflow; each run is also a resource,
 * `weft://runs/{id}`. stdout carries only the protocol: every log goes to stderr. `weft_eval` is not built yet.
 */
import { existsSync } from 'node:fs';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  defaultRoleKinds,
  formatError,
  isWeftError,
  loadToolsFile,
  loadWorkflowFile,
  newRunId,
  ownerState,
  planTask,
  runTask,
  runWorkflow,
  summarizeRun,
  toWorkflowJson,
  WeftError,
  type RunStore,
  type WeftEvent,
} from '../index.js';
import { type Context, modelMaker, type ModelContext, runNotFound } from './context.js';
import { runJson } from './run-command.js';
import { shownSummary } from './show-command.js';

export interface WeftMcpServerOptions {
  readonly context: Context;
  readonly model: ModelContext;
  /** The store every tool reads and runs write; opened once for the server's life. */
  readonly store: RunStore;
  /** Aborted when the server stops: runs it started are cancelled (their finished work is kept). */
  readonly signal: AbortSignal;
  readonly log: (line: string) => void;
  /** Weft's version, told to clients at initialization. */
  readonly version: string;
  /** Runs going at once before weft_run refuses another (default MAX_RUNS_AT_ONCE). */
  readonly maxRuns?: number;
}

/** A client looping on weft_run must not start runs without end: each holds model calls and memory. */
export const MAX_RUNS_AT_ONCE = 8;

export interface WeftMcpServer {
  readonly server: McpServer;
  /** Resolves when every run this server started has ended. */
  settled(): Promise<void>;
}

/** A tool's answer: one text block holding the JSON document. */
function jsonResult(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] };
}

/** A failure as a tool error the client can show, never a crash of the server. */
function errorResult(error: unknown): CallToolResult {
  // formatError adds the place (file:line:column field) and the located issues, as the CLI prints them.
  const message = isWeftError(error)
    ? `${error.code}: ${formatError(error)}`
    : `INTERNAL: ${error instanceof Error ? error.message : String(error)}`;
  return { content: [{ type: 'text', text: message }], isError: true };
}

async function guarded(work: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    return jsonResult(await work());
  } catch (error) {
    return errorResult(error);
  }
}

export async function createWeftMcpServer(options: WeftMcpServerOptions): Promise<WeftMcpServer> {
  // The SDK's server is heavy; only `weft mcp` loads it.
  const { McpServer, ResourceTemplate } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { context, store, signal, log } = options;
  const { model, costOf } = options.model;
  const server = new McpServer({ name: 'weft', version: options.version });
  /** Runs started here and not yet ended: a status request may come before the run's record exists. */
  const running = new Map<string, Promise<void>>();

  const runDocument = async (runId: string) => {
    const run = await store.getRun(runId);
    if (!run) {
      if (running.has(runId)) return undefined;
      throw runNotFound(runId, context);
    }
    const events = (await store.events(runId)).map((stored) => stored.event as WeftEvent);
    return { run, summary: shownSummary(summarizeRun(runId, events), run.status, context.home) };
  };

  server.registerTool(
    'weft_plan',
    {
      title: 'Plan a task',
      description: "Plans a task into a workflow of subtasks with Weft's planner; returns the chosen plan (JSON).",
      inputSchema: {
        task: z.string().min(1).max(100_000).describe('the task, in words'),
        candidates: z.number().int().min(1).max(16).optional().describe('candidate plans to generate (default 1)'),
      },
    },
    async ({ task, candidates }) =>
      guarded(async () => {
        const result = await planTask({
          task,
          model,
          signal,
          ...(candidates !== undefined ? { candidates } : {}),
        });
        return { model: model.id, chosen: result.chosenIndex, plan: toWorkflowJson(result.workflow) };
      }),
  );

  server.registerTool(
    'weft_run',
    {
      title: 'Start a run',
      description:
        "Starts planning and executing a task in the server; returns its run id at once (poll weft_status, read weft://runs/{id}), or with wait: true when the run ends, sending progress notifications to the request's progressToken meanwhile.",
      inputSchema: {
        task: z.string().min(1).max(100_000).describe('the task, in words'),
        wait: z.boolean().optional().describe('answer when the run ends instead of at once (default false)'),
      },
    },
    async ({ task, wait }, extra) =>
      guarded(async () => {
        const maxRuns = options.maxRuns ?? MAX_RUNS_AT_ONCE;
        if (running.size >= maxRuns) {
          throw new WeftError(
            'BAD_INPUT',
            `${running.size} runs are going in this server (at most ${maxRuns}): wait for one to end (weft_status)`,
            { location: { field: 'task' } },
          );
        }
        const runId = newRunId();
        const token = extra._meta?.progressToken;
        // Progress may only name a request still open (MCP): a run answered at once reports through weft_status.
        let answered = false;
        const ended = new Set<string>();
        let total = 0;
        // MCP asks progress to increase with each notification: a retried subtask or a revised plan sends nothing.
        let sent = -1;
        const onEvent = (event: WeftEvent) => {
          if (token === undefined || answered) return;
          if (event.type === 'plan-chosen' || event.type === 'plan-update') {
            total = 'workflow' in event ? event.workflow.subtasks.length : total;
          } else if (event.type === 'task-end') {
            ended.add(event.taskId);
          } else return;
          if (ended.size <= sent) return;
          sent = ended.size;
          // Notifications after the client left are dropped: the run goes on and stays in the store.
          extra
            .sendNotification({
              method: 'notifications/progress',
              params: {
                progressToken: token,
                progress: ended.size,
                ...(total > 0 ? { total } : {}),
                message: event.type === 'task-end' ? `${event.taskId} ${event.status}` : `plan: ${total} subtasks`,
              },
            })
            .catch(() => {});
        };
        const work = runTask({
          task,
          runId,
          model,
          store,
          home: context.home,
          costOf,
          // A client that cancels the request it waits on cancels the run; one answered at once cannot.
          signal: wait ? AbortSignal.any([signal, extra.signal]) : signal,
          onEvent,
          createModel: modelMaker(context.config),
          roleKinds: defaultRoleKinds(),
          base: process.cwd(),
        }).then(
          (result) => log(`run ${runId}: ${result.status}`),
          (error: unknown) => log(`run ${runId} failed: ${error instanceof Error ? error.message : String(error)}`),
        );
        running.set(runId, work);
        void work.finally(() => running.delete(runId));
        if (!wait) {
          answered = true;
          return { runId, status: 'running' };
        }
        await work;
        answered = true;
        const found = await runDocument(runId);
        return { runId, status: found?.summary.status ?? 'interrupted' };
      }),
  );

  server.registerTool(
    'weft_status',
    {
      title: "A run's status",
      description: "A run's status and its subtask counts (pending, running, completed, failed).",
      inputSchema: { runId: z.string().min(1).max(200) },
    },
    async ({ runId }) =>
      guarded(async () => {
        const found = await runDocument(runId);
        if (!found) return { runId, status: 'running', subtasks: 0, completed: 0, failed: 0, calls: 0 };
        const { run, summary } = found;
        // A run this process (or another live one) still drives is running though its log has no run-end yet.
        const live = running.has(runId) || ownerState(run.owner) === 'alive';
        const status = run.status === 'running' && live ? 'running' : summary.status;
        const count = (wanted: string) => summary.tasks.filter((t) => t.status === wanted).length;
        return {
          runId,
          status,
          subtasks: summary.tasks.length,
          completed: count('completed'),
          failed: count('failed'),
          calls: summary.calls,
          costUsd: summary.costUsd,
        };
      }),
  );

  server.registerTool(
    'weft_show',
    {
      title: "A run's document",
      description: 'A recorded run as the `weft show --json` document: subtasks, outputs, result, calls, cost.',
      inputSchema: { runId: z.string().min(1).max(200) },
    },
    async ({ runId }) => guarded(async () => showDocument(runId)),
  );

  server.registerTool(
    'weft_exec',
    {
      title: 'Execute a workflow',
      description:
        'Runs an executable workflow file (JSON or YAML) on one input with its tools file; no model is called.',
      inputSchema: {
        workflow: z.string().min(1).max(4096).describe('path of the workflow file'),
        tools: z.string().min(1).max(4096).optional().describe('path of the tools file'),
        input: z.record(z.string(), z.unknown()).optional().describe('the input object'),
      },
    },
    async ({ workflow: file, tools: toolsFile, input }) =>
      guarded(async () => {
        if (toolsFile !== undefined && !existsSync(toolsFile)) {
          throw new WeftError('BAD_INPUT', `no tools file ${toolsFile}`, { location: { field: 'tools' } });
        }
        const tools = toolsFile !== undefined ? await loadToolsFile(toolsFile, { signal }) : undefined;
        try {
          const { workflow } = await loadWorkflowFile(file, { toolNames: tools?.tools.map((t) => t.name) ?? [] });
          const result = await runWorkflow(workflow, { tools: tools?.tools ?? [], input: input ?? {}, signal });
          return { output: result.output, steps: result.steps, toolCalls: result.toolCalls.length, llmCalls: 0 };
        } finally {
          await tools?.close();
        }
      }),
  );

  const showDocument = async (runId: string) => {
    const found = await runDocument(runId);
    if (!found) throw new WeftError('NOT_FOUND', `Run "${runId}" has just started and has no record yet`);
    return runJson(found.summary);
  };

  server.registerResource(
    'run',
    new ResourceTemplate('weft://runs/{id}', {
      // Newest first, at most 100: a client's resource picker, not an archive (`weft runs` lists them all).
      list: async () => ({
        resources: (await store.listRuns())
          .slice(-100)
          .reverse()
          .map((run) => ({
            uri: `weft://runs/${encodeURIComponent(run.runId)}`,
            name: `${run.runId}: ${run.task.split('\n')[0]!.slice(0, 80)}`,
            mimeType: 'application/json',
          })),
      }),
    }),
    { title: 'A Weft run', description: 'The `weft show --json` document of a run', mimeType: 'application/json' },
    async (uri, variables) => {
      const id = Array.isArray(variables.id) ? variables.id[0] : variables.id;
      // A resource read has no isError: the SDK turns a throw into a protocol error with this message.
      const document = await showDocument(decodeURIComponent(id ?? ''));
      return {
        contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(document, null, 2) }],
      };
    },
  );

  return {
    server,
    settled: async () => {
      await Promise.all([...running.values()]);
    },
  };
}
