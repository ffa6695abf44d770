// @ts-check
/** One trace: the task, its inputs, the tool calls in order with arguments and results, the answer. */
import { getJson } from '../api.js';
import { dollars, h, when } from '../dom.js';
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
        call.step ?? null,
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
