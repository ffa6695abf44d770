/**
 * `weft mcp`: Weft as an MCP server over stdio. Tools plan a task, start a run in this process (with the
 * options of `weft run`), report its status, show its document, cancel it, list recent runs, score a workflow with
 * WorfEval and execute an executable workflow; each run is also a resource, `weft://runs/{id}`, which a client may
 * subscribe to. stdout carries only the protocol: every log goes to stderr.
 */
import { existsSync } from 'node:fs';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  defaultRoleKinds,
  effectiveStatus,
  formatError,
  isWeftError,
  loadTeamOffers,
  loadToolsFile,
  loadWorkflowFile,
  createMeter,
  meteredModel,
  newRunId,
  ownerState,
  planTask,
  redactModelSpec,
  redactUrl,
  runTask,
  runWorkflowIsolated,
  summarizeRun,
  toWorkflowJson,
  traceAgent,
  WeftError,
  type RunStore,
  type StoredRunStatus,
  type WeftEvent,
  type Workflow,
  runEvents,
} from '../internal.js';
import { type Context, modelMaker, type ModelContext, runNotFound } from '../cli/context.js';
import { isolationLimits } from '../cli/distill/isolation-limits.js';
import { loadRunTools, type RunTools } from '../cli/load-run-tools.js';
import { evalInputShape, mcpEval } from './mcp-eval.js';
import { readPlan, runJson } from '../cli/run/run-command.js';
import { type RunChoices, runChoicesOptions, runChoicesShape } from '../cli/run-choices.js';
import { shownSummary } from '../cli/run/show-command.js';

export interface WeftMcpServerOptions {
  readonly context: Context;
  readonly model: ModelContext;
  /**
   * Set when the server was started without a model (none given or configured): why, and how to give one. The
   * tools that call a model (weft_plan, weft_run) answer it as their error; the others work as usual.
   */
  readonly modelMissing?: string;
  /** The store every tool reads and runs write; opened once for the server's life. */
  readonly store: RunStore;
  /** Aborted when the server stops: runs it started are cancelled (their finished work is kept). */
  readonly signal: AbortSignal;
  readonly log: (line: string) => void;
  /** Weft's version, told to clients at initialization. */
  readonly version: string;
  /** Runs going at once before weft_run refuses another (default MAX_RUNS_AT_ONCE). */
  readonly maxRuns?: number;
  /** How often subscribed runs are looked up in the store (default SUBSCRIPTION_POLL_MS). */
  readonly pollMs?: number;
  /** Environment for weft_eval's embedding similarities (API keys); default process.env. */
  readonly env?: NodeJS.ProcessEnv;
}

/** A client looping on weft_run must not start runs without end: each holds model calls and memory. */
export const MAX_RUNS_AT_ONCE = 8;

/** weft_runs answers at most this many runs (a client's overview, not an archive: `weft runs` lists them all). */
export const MAX_LISTED_RUNS = 500;
/** A task in a list of runs: its first line, clipped. */
const LISTED_TASK_CHARS = 120;
/** Resource subscriptions one client may hold. */
const MAX_SUBSCRIPTIONS = 1000;
/** How often subscribed runs of other processes are looked up in the store. */
export const SUBSCRIPTION_POLL_MS = 1000;
const RUN_URI_PREFIX = 'weft://runs/';

const filePath = z.string().min(1).max(4096);

/** What weft_runs filters by: every status a stored run can show (the compiler checks the list against the type). */
const RUN_STATUSES = ['running', 'completed', 'failed', 'cancelled', 'interrupted'] as const satisfies readonly [
  StoredRunStatus,
  ...StoredRunStatus[],
];

/** A run this server started and drives. */
interface OwnRun {
  /** Settles when the run has ended and its record is final. */
  readonly done: Promise<void>;
  /** Cancels it (weft_cancel); finished work is kept. */
  readonly stop: AbortController;
}

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
  // A provider's message may quote the URL it could not reach, with a key in its query: never sent on.
  return { content: [{ type: 'text', text: redactUrl(message).display }], isError: true };
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
  const { ErrorCode, McpError, SubscribeRequestSchema, UnsubscribeRequestSchema } = await import(
    '@modelcontextprotocol/sdk/types.js'
  );
  const { context, store, signal, log } = options;
  const { model, costOf } = options.model;
  const server = new McpServer({ name: 'weft', version: options.version });
  /** Runs started here and not yet ended: a status request may come before the run's record exists. */
  const running = new Map<string, OwnRun>();
  /** Runs going plus weft_run calls still preparing theirs: what the limit of runs at once counts. */
  let slotsTaken = 0;
  /**
   * Resource URIs the client subscribed to (one client per server: stdio), each with the run's status it was last
   * told about (undefined: no record yet).
   */
  const subscribed = new Map<string, string | undefined>();

  const runUri = (runId: string) => `weft://runs/${encodeURIComponent(runId)}`;
  const statusOf = async (runId: string): Promise<string | undefined> => {
    const run = await store.getRun(runId);
    // A run this server drives is running whatever the store's last word.
    return run === undefined ? undefined : running.has(runId) ? 'running' : effectiveStatus(run);
  };
  /** Tells a subscribed client that a run's status changed; dropped once the client has left. */
  const refresh = async (uri: string): Promise<void> => {
    if (!subscribed.has(uri)) return;
    const status = await statusOf(decodeURIComponent(uri.slice(RUN_URI_PREFIX.length)));
    if (!subscribed.has(uri) || subscribed.get(uri) === status) return;
    subscribed.set(uri, status);
    await server.server.sendResourceUpdated({ uri });
  };
  const runChanged = (runId: string) => {
    refresh(runUri(runId)).catch(() => {});
  };
  // Runs of other processes (a `weft run` in another terminal) change only in the store: looked at now and then,
  // and only while the client subscribes to something.
  let polling = false;
  const poller = setInterval(() => {
    if (polling || subscribed.size === 0) return;
    polling = true;
    void Promise.all([...subscribed.keys()].map((uri) => refresh(uri).catch(() => {}))).finally(() => {
      polling = false;
    });
  }, options.pollMs ?? SUBSCRIPTION_POLL_MS);
  poller.unref();
  if (signal.aborted) clearInterval(poller);
  else signal.addEventListener('abort', () => clearInterval(poller), { once: true });

  const needModel = () => {
    if (options.modelMissing !== undefined) throw new WeftError('MODEL_CONFIG', options.modelMissing);
  };

  const runDocument = async (runId: string) => {
    const run = await store.getRun(runId);
    if (!run) {
      if (running.has(runId)) return undefined;
      throw runNotFound(runId, context);
    }
    const events = await runEvents(store, runId);
    return { run, summary: shownSummary(summarizeRun(runId, events), run.status, context.home) };
  };

  server.registerTool(
    'weft_plan',
    {
      title: 'Plan a task',
      description:
        "Plans a task into a workflow of subtasks with Weft's planner, as `weft plan`; returns the chosen plan (JSON), which weft_run can run from a file.",
      inputSchema: {
        task: z.string().min(1).max(100_000).describe('the task, in words'),
        candidates: z.number().int().min(1).max(16).optional().describe('candidate plans to generate (default 3)'),
        tools: filePath
          .optional()
          .describe("a tools file: its tools' names and descriptions are offered to the planner"),
        teams: z.array(filePath).max(16).optional().describe('team files offered to the planner'),
      },
    },
    async ({ task, candidates, tools: toolsFile, teams: teamFiles }) =>
      guarded(async () => {
        needModel();
        const teams =
          teamFiles !== undefined && teamFiles.length > 0
            ? await loadTeamOffers(teamFiles, process.cwd(), {
                createModel: modelMaker(context.config),
                runModel: model.id,
              })
            : undefined;
        // The planner needs only the tools' names and descriptions: the set is closed before planning.
        const toolSet = toolsFile !== undefined ? await loadToolsFile(toolsFile, { signal }) : undefined;
        const offers = toolSet?.tools.map((tool) => ({ name: tool.name, description: tool.description }));
        await toolSet?.close();
        // Metered for the `chat` spans (with --otel), under one `invoke_agent planner` span as `weft plan` makes.
        const meter = createMeter();
        const metered = meteredModel(model, { budget: {}, meter, now: () => 0, costOf, emit: () => {} });
        const result = await traceAgent(
          { agent: 'planner', attributes: { 'weft.command': 'mcp weft_plan' }, content: { 'weft.task': task } },
          () =>
            planTask({
              task,
              model: metered,
              signal,
              ...(candidates !== undefined ? { candidates } : {}),
              ...(teams ? { teams } : {}),
              ...(offers ? { tools: offers } : {}),
            }),
          (planned) => ({
            'weft.plan.chosen': planned.chosenIndex,
            'weft.calls': meter.calls,
            'gen_ai.usage.input_tokens': meter.inputTokens,
            'gen_ai.usage.output_tokens': meter.outputTokens,
            'weft.cost_usd': meter.costUsd,
          }),
        );
        // A model spec may carry a URL with credentials.
        return {
          model: redactModelSpec(model.id),
          chosen: result.chosenIndex,
          plan: toWorkflowJson(result.workflow),
        };
      }),
  );

  server.registerTool(
    'weft_run',
    {
      title: 'Start a run',
      description:
        "Starts planning and executing a task (or running a plan file) in the server, with `weft run`'s options; returns its run id at once (poll weft_status, read or subscribe to weft://runs/{id}, stop it with weft_cancel), or with wait: true when the run ends, sending progress notifications to the request's progressToken meanwhile.",
      inputSchema: {
        task: z.string().min(1).max(100_000).optional().describe('the task, in words (or give plan)'),
        plan: filePath
          .optional()
          .describe('a plan file (JSON or YAML, e.g. from `weft plan --out`) to run instead of planning a task'),
        wait: z.boolean().optional().describe('answer when the run ends instead of at once (default false)'),
        tools: filePath.optional().describe('a tools file: its tools are offered to the planner and the agents'),
        teams: z.array(filePath).max(16).optional().describe('team files offered to the planner'),
        verify: z.boolean().optional().describe("verify each subtask's output (default true)"),
        retryFeedback: z
          .boolean()
          .optional()
          .describe("tell a retry its earlier attempts and the verifier's reasons (default true)"),
        plannerScope: z
          .boolean()
          .optional()
          .describe('ask the planner for implementation-only subtasks with an output format each (default true)'),
        neededBy: z
          .boolean()
          .optional()
          .describe('show each agent the objectives of the subtasks that need its result (default true)'),
        minimalUpdates: z
          .boolean()
          .optional()
          .describe('ask the inspector for the smallest change the failures require (default true)'),
        ...runChoicesShape(),
      },
    },
    async (args, extra) =>
      guarded(async () => {
        needModel();
        const { task: givenTask, plan: planFile, wait, tools: toolsFile, teams: teamFiles, verify } = args;
        const choices: RunChoices = {
          ...(args.strategy !== undefined ? { strategy: args.strategy } : {}),
          ...(args.concurrency !== undefined ? { concurrency: args.concurrency } : {}),
          ...(args.candidates !== undefined ? { candidates: args.candidates } : {}),
          ...(args.updateCandidates !== undefined ? { updateCandidates: args.updateCandidates } : {}),
          ...(args.maxCalls !== undefined ? { maxCalls: args.maxCalls } : {}),
          ...(args.maxTokens !== undefined ? { maxTokens: args.maxTokens } : {}),
          ...(args.maxCostUsd !== undefined ? { maxCostUsd: args.maxCostUsd } : {}),
          ...(args.timeoutSeconds !== undefined ? { timeoutSeconds: args.timeoutSeconds } : {}),
          ...(args.maxAttempts !== undefined ? { maxAttempts: args.maxAttempts } : {}),
          ...(args.maxToolSteps !== undefined ? { maxToolSteps: args.maxToolSteps } : {}),
          ...(args.maxToolCalls !== undefined ? { maxToolCalls: args.maxToolCalls } : {}),
        };
        // The slot is taken here, before the first await: checked and taken apart, concurrent calls would all pass
        // the check while the first ones still load their files. Given back on every path (refused input, a run
        // that fails to start, the run's end).
        const maxRuns = options.maxRuns ?? MAX_RUNS_AT_ONCE;
        if (slotsTaken >= maxRuns) {
          throw new WeftError(
            'BAD_INPUT',
            `${slotsTaken} runs are going or starting in this server (at most ${maxRuns}): wait for one to end (weft_status) or cancel one (weft_cancel)`,
            { location: { field: 'task' } },
          );
        }
        slotsTaken += 1;
        let slotHeld = true;
        const releaseSlot = () => {
          if (slotHeld) slotsTaken -= 1;
          slotHeld = false;
        };
        // Set once the run exists: from then on its end gives the slot back, whether this call waits or not.
        let handedOver = false;
        try {
          // The same rules as `weft run <task> --plan file --team file`, checked before anything is loaded.
          if (givenTask === undefined && planFile === undefined) {
            throw new WeftError('BAD_INPUT', 'give a task (in words) or a plan file', { location: { field: 'task' } });
          }
          if (givenTask !== undefined && planFile !== undefined) {
            throw new WeftError('BAD_INPUT', 'give a task or a plan, not both: the plan carries its own task', {
              location: { field: 'plan' },
            });
          }
          if (planFile !== undefined && teamFiles !== undefined && teamFiles.length > 0) {
            throw new WeftError(
              'BAD_INPUT',
              'a plan skips planning, so teams (offered to the planner) do not apply: name the team files in the plan\'s roles ({"kind": "team", "team": "file"}) instead',
              { location: { field: 'teams' } },
            );
          }
          const plan: Workflow | undefined = planFile !== undefined ? await readPlan(planFile) : undefined;
          const task = givenTask ?? plan!.task;
          const teams =
            teamFiles !== undefined && teamFiles.length > 0
              ? await loadTeamOffers(teamFiles, process.cwd(), {
                  createModel: modelMaker(context.config),
                  runModel: model.id,
                })
              : undefined;
          // A bad tools file is the client's input error, answered before any run exists; the tools close at its end.
          const runTools: RunTools = await loadRunTools(
            { toolsFile, planFile },
            signal,
            isolationLimits({}, context.config),
          );
          const toolSet = runTools.toolSet;

          const runId = newRunId();
          const token = extra._meta?.progressToken;
          // Progress may only name a request still open (MCP): a run answered at once reports through weft_status.
          let answered = false;
          const ended = new Set<string>();
          let total = 0;
          // MCP asks progress to increase with each notification: a retried subtask or a revised plan sends nothing.
          let sent = -1;
          let markStarted = () => {};
          const started = new Promise<undefined>((resolve) => {
            markStarted = () => resolve(undefined);
          });
          const onEvent = (event: WeftEvent) => {
            // The record exists from run-start on: a subscriber may read it now.
            if (event.type === 'run-start') {
              markStarted();
              runChanged(runId);
            }
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
          const stop = new AbortController();
          // A client that cancels the request it waits on cancels the run; one answered at once, through weft_cancel.
          const signals = [signal, stop.signal, ...(wait ? [extra.signal] : [])];
          const chosen = runChoicesOptions(choices);
          const work = runTask({
            task,
            runId,
            model,
            store,
            home: context.home,
            costOf,
            signal: AbortSignal.any(signals),
            onEvent,
            run: { ...chosen.run, ...(verify === false ? { verify: false } : {}) },
            budget: chosen.budget,
            prompts: {
              ...(args.retryFeedback === false ? { retryFeedback: false } : {}),
              ...(args.plannerScope === false ? { plannerScope: false } : {}),
              ...(args.neededBy === false ? { neededBy: false } : {}),
              ...(args.minimalUpdates === false ? { minimalUpdates: false } : {}),
            },
            tools: {
              available: toolSet?.tools ?? [],
              ...(chosen.maxToolSteps !== undefined ? { maxSteps: chosen.maxToolSteps } : {}),
              ...(runTools.toolsFile !== undefined ? { file: runTools.toolsFile } : {}),
              ...(runTools.planToolsFile !== undefined ? { planFile: runTools.planToolsFile } : {}),
            },
            ...(plan ? { plan, planFile: planFile! } : {}),
            ...(teams ? { teams } : {}),
            roles: { createModel: modelMaker(context.config), kinds: defaultRoleKinds() },
            base: process.cwd(),
          }).result;
          const done = work
            .then(
              (result) => log(`run ${runId}: ${result.status}`),
              (error: unknown) => log(redactUrl(`run ${runId} failed: ${formatError(error)}`).display),
            )
            .finally(async () => {
              await toolSet?.close().catch(() => {});
              running.delete(runId);
              releaseSlot();
              runChanged(runId);
            });
          running.set(runId, { done, stop });
          handedOver = true;
          // A problem found before the run exists (a plan's role naming a tool that no tools file gives, a team file
          // whose model cannot be made) is the client's input error: answered, not left in the server's log.
          const early = await Promise.race([
            started,
            work.then(
              () => undefined,
              (error: unknown) => ({ error }),
            ),
          ]);
          if (early) {
            await done;
            throw early.error;
          }
          // A client's resource list holds the new run.
          server.server.sendResourceListChanged().catch(() => {});
          if (!wait) {
            answered = true;
            return { runId, status: 'running' };
          }
          await done;
          answered = true;
          const found = await runDocument(runId);
          return { runId, status: found?.summary.status ?? 'interrupted' };
        } finally {
          if (!handedOver) releaseSlot();
        }
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
    'weft_cancel',
    {
      title: 'Cancel a run',
      description:
        'Cancels a run this server started and answers once it has stopped: its finished subtasks are kept (`weft resume` can continue it).',
      inputSchema: { runId: z.string().min(1).max(200) },
    },
    async ({ runId }) =>
      guarded(async () => {
        const own = running.get(runId);
        if (!own) {
          const run = await store.getRun(runId);
          if (!run) throw runNotFound(runId, context);
          const status = effectiveStatus(run);
          if (status === 'running') {
            const owner = run.owner ? ` (process ${run.owner.pid} on ${run.owner.host})` : '';
            throw new WeftError(
              'BAD_INPUT',
              `run "${runId}" is driven by another process${owner}, not this server: stop it there`,
              { location: { field: 'runId' } },
            );
          }
          // Interrupted: its process has gone, nothing drives it to cancel.
          const state = status === 'interrupted' ? 'was interrupted (its process has gone)' : `has ended (${status})`;
          throw new WeftError('BAD_INPUT', `run "${runId}" ${state}: nothing to cancel`, {
            location: { field: 'runId' },
          });
        }
        own.stop.abort(new WeftError('ABORTED', 'cancelled by the MCP client (weft_cancel)'));
        await own.done;
        const found = await runDocument(runId);
        return { runId, status: found?.summary.status ?? 'cancelled' };
      }),
  );

  server.registerTool(
    'weft_runs',
    {
      title: 'Recent runs',
      description: 'The recorded runs, newest first: id, status, task (first line, clipped), created.',
      inputSchema: {
        limit: z.number().int().min(1).max(MAX_LISTED_RUNS).optional().describe('runs to list (default 20)'),
        status: z.enum(RUN_STATUSES).optional().describe('only runs with this status'),
      },
    },
    async ({ limit, status }) =>
      guarded(async () => {
        const all = (await store.listRuns()).map((run) => ({
          runId: run.runId,
          // A run this server drives is running whatever the store's last word.
          status: running.has(run.runId) ? 'running' : effectiveStatus(run),
          task: clippedTask(run.task),
          createdAt: run.createdAt,
        }));
        const matching = (status === undefined ? all : all.filter((run) => run.status === status)).reverse();
        const runs = matching.slice(0, limit ?? 20);
        return { runs, total: matching.length };
      }),
  );

  server.registerTool(
    'weft_eval',
    {
      title: 'Score a workflow (WorfEval)',
      description:
        'WorfEval scores (f1_chain, f1_graph, precision, recall) of a predicted workflow against a gold one, as `weft eval pred --gold gold`: each side inline (WorfBench text, or an executable workflow or Weft plan as a JSON object) or as a file. Or a WorfBench predictions file against its gold data (predictionsFile + goldFile), bounded.',
      inputSchema: evalInputShape,
    },
    async (args, extra) =>
      guarded(async () =>
        mcpEval(args, {
          home: context.home,
          env: options.env ?? process.env,
          signal: AbortSignal.any([signal, extra.signal]),
        }),
      ),
  );

  server.registerTool(
    'weft_exec',
    {
      title: 'Execute a workflow',
      description:
        'Runs an executable workflow file (JSON or YAML) on one input with its tools file; no model is called.',
      inputSchema: {
        workflow: filePath.describe('path of the workflow file'),
        tools: filePath.optional().describe('path of the tools file'),
        input: z.record(z.string(), z.unknown()).optional().describe('the input object'),
      },
    },
    async ({ workflow: file, tools: toolsFile, input }) =>
      guarded(async () => {
        if (toolsFile !== undefined && !existsSync(toolsFile)) {
          throw new WeftError('BAD_INPUT', `no tools file ${toolsFile}`, { location: { field: 'tools' } });
        }
        // Its workflow tools run with the case's own limits.
        const limits = isolationLimits({}, context.config);
        const tools =
          toolsFile !== undefined ? await loadToolsFile(toolsFile, { signal, workflowLimits: limits }) : undefined;
        try {
          const { workflow } = await loadWorkflowFile(file, { toolNames: tools?.tools.map((t) => t.name) ?? [] });
          // In a worker thread with hard limits (the config's caseTimeLimitMs, workerMemoryMb, jobs): a hostile
          // workflow stops at its limit, and this server keeps answering meanwhile.
          const result = await runWorkflowIsolated(workflow, {
            tools: tools?.tools ?? [],
            input: input ?? {},
            signal,
            ...limits,
          });
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
            uri: runUri(run.runId),
            name: `${run.runId}: ${clippedTask(run.task)}`,
            mimeType: 'application/json',
          })),
      }),
    }),
    {
      title: 'A Weft run',
      description: 'The `weft show --json` document of a run; a subscriber is told when its status changes',
      mimeType: 'application/json',
    },
    async (uri, variables) => {
      const id = Array.isArray(variables.id) ? variables.id[0] : variables.id;
      // A resource read has no isError: the SDK turns a throw into a protocol error with this message.
      const runId = decodedRunId(id ?? '');
      if (runId === undefined)
        throw new McpError(ErrorCode.InvalidParams, `Not a Weft run's resource: ${uri.href.slice(0, 200)}`);
      const document = await showDocument(runId);
      return {
        contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(document, null, 2) }],
      };
    },
  );

  // Subscriptions (resources/subscribe): only runs' URIs, told when the run's status changes: at once for a run this
  // server drives, within SUBSCRIPTION_POLL_MS for one of another process.
  server.server.registerCapabilities({ resources: { subscribe: true } });
  server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const { uri } = request.params;
    // A run id is short (newRunId; at most 200 characters in the tools' schemas), one path segment, well encoded:
    // anything else is no run a client could be told about, only a slot taken from its bounded set.
    const id = uri.startsWith(RUN_URI_PREFIX) ? decodedRunId(uri.slice(RUN_URI_PREFIX.length)) : undefined;
    if (id === undefined || uri.length > RUN_URI_PREFIX.length + 600) {
      throw new McpError(ErrorCode.InvalidParams, `Not a Weft run's resource: ${uri.slice(0, 200)}`);
    }
    // Bounded: one URI per run a client cares about, not an unbounded set it can grow.
    if (subscribed.size >= MAX_SUBSCRIPTIONS && !subscribed.has(uri)) {
      throw new McpError(ErrorCode.InvalidParams, `At most ${MAX_SUBSCRIPTIONS} subscriptions: unsubscribe first`);
    }
    if (!subscribed.has(uri)) subscribed.set(uri, await statusOf(id));
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscribed.delete(request.params.uri);
    return {};
  });

  return {
    server,
    settled: async () => {
      await Promise.all([...running.values()].map((run) => run.done));
    },
  };
}

/** The run id of a resource URI's last part: undefined when empty, badly percent-encoded or more than one segment. */
function decodedRunId(encoded: string): string | undefined {
  if (encoded === '' || encoded.includes('/')) return undefined;
  try {
    const id = decodeURIComponent(encoded);
    // An id holding `/` (encoded as %2F by runUri) is allowed: the store takes any id.
    return id === '' ? undefined : id;
  } catch {
    return undefined;
  }
}

/** A task as a list shows it: its first line, clipped. */
function clippedTask(task: string): string {
  const line = task.split('\n')[0]!;
  return line.length > LISTED_TASK_CHARS ? `${line.slice(0, LISTED_TASK_CHARS)}…` : line;
}
