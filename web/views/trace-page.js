// @ts-check
/**
 * One trace: the task, its inputs, the tool calls in order with arguments and results (each with the step it was
 * made in), the answer.
 */
import { getJson } from '../api.js';
import { h, when } from '../dom.js';
import { dollars } from '../format.js';
import { codeBlock, stats, table, put } from './page-parts.js';

/** @type {import('../routes.js').Page} */
export async function renderTracePage(main, [traceId], signal) {
  const { trace } = await getJson(`/api/traces/${encodeURIComponent(traceId ?? '')}`, signal);
  put(
    main,
    h(
      'div',
      { class: 'toolbar' },
      h('a', { href: '#/traces' }, '‹ traces'),
      h('h1', {}, trace.traceId),
      h('span', { class: `badge ${trace.success ? 'completed' : 'failed'}` }, trace.success ? 'success' : 'failed'),
    ),
    h('pre', { class: 'task' }, trace.task),
    stats([
      ['task key', trace.taskKey],
      ['mode', trace.mode],
      ['model', trace.model],
      ['when', when(trace.createdAt)],
      ['model calls', trace.usage.calls],
      ['tokens', trace.usage.inputTokens + trace.usage.outputTokens],
      ['cost', trace.usage.costUsd === undefined ? undefined : dollars(trace.usage.costUsd)],
      ['run', trace.runId],
    ]),
    trace.error ? h('p', { class: 'error' }, trace.error) : null,
    h('h2', {}, 'Input'),
    codeBlock(trace.input),
    trace.plan ? h('h2', {}, 'Plan') : null,
    trace.plan ? h('ol', {}, ...trace.plan.map((/** @type {string} */ step) => h('li', {}, step))) : null,
    h('h2', {}, `Tool calls (${trace.callsTotal})`),
    table(
      ['#', 'tool', 'step', 'arguments', 'result', 'ms'],
      trace.calls.map((/** @type {any} */ call, /** @type {number} */ index) => [
        index + 1,
        call.tool,
        stepCell(call.step, trace.mode, trace.plan?.length ?? 0),
        codeBlock(call.args),
        call.ok ? codeBlock(call.result ?? '') : h('span', { class: 'error' }, call.error ?? 'failed'),
        call.durationMs,
      ]),
      { id: 'trace-calls', className: 'calls', empty: 'No tool calls.' },
    ),
    h('h2', {}, 'Answer'),
    trace.answer !== undefined ? codeBlock(trace.answer) : h('p', { class: 'muted' }, 'No answer.'),
    trace.expected !== undefined ? h('h2', {}, 'Expected') : null,
    trace.expected !== undefined ? codeBlock(trace.expected) : null,
  );
}

/**
 * Which step a call was made in, counted from 1 as `weft traces show` does: the plan step (plan-execute), the model
 * reply that asked for it (react), or the subtask (a run's trace). Traces recorded before react kept its step have
 * none: a dash.
 * @param {number | string | undefined} step @param {string} mode @param {number} planSteps
 */
function stepCell(step, mode, planSteps) {
  if (typeof step === 'string') return h('code', {}, step);
  if (typeof step !== 'number') return h('span', { class: 'muted', title: 'not recorded' }, '—');
  const title =
    mode !== 'plan-execute'
      ? `model reply ${step + 1}`
      : step < planSteps
        ? `plan step ${step + 1}`
        : 'after the plan (the final answer)';
  return h('span', { class: 'step', title }, String(step + 1));
}
