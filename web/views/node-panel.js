// @ts-check
/**
 * What a clicked node shows: objective, role, each attempt with what a retry was told, its verdicts, tool calls,
 * model calls and cost, and the output as Markdown. The output HTML comes from the server's markdown-it with raw HTML off (inert); every
 * other value goes in as text.
 */
import { getJson } from '../api.js';
import { h } from '../dom.js';
import { dollars, duration } from '../format.js';
import { attemptLabel, toolFailureText } from './attempt-label.js';
import { drawTeam } from './team-view.js';

/**
 * @param {string} runId
 * @param {string} taskId
 * @param {AbortSignal} signal
 * @returns {Promise<HTMLElement>}
 */
export async function nodePanel(runId, taskId, signal) {
  const detail = await getJson(`/api/runs/${encodeURIComponent(runId)}/tasks/${encodeURIComponent(taskId)}`, signal);
  const panel = h(
    'section',
    { class: 'panel', id: 'node-panel', 'data-task': taskId },
    h('h2', {}, detail.id),
    h(
      'dl',
      {},
      h('dt', {}, 'objective'),
      h('dd', { class: 'objective' }, detail.objective ?? '(not in the plan any more)'),
      ...(detail.outputFormat
        ? [h('dt', {}, 'output format'), h('dd', { class: 'output-format' }, detail.outputFormat)]
        : []),
      h('dt', {}, 'role'),
      h('dd', { class: 'role' }, detail.agent ?? ''),
      h('dt', {}, 'after'),
      h('dd', {}, detail.dependsOn.join(', ') || '—'),
      h('dt', {}, 'calls'),
      h('dd', { class: 'calls' }, `${detail.calls} (${dollars(detail.costUsd)})`),
      ...(detail.toolCalls > 0
        ? [
            h('dt', {}, 'tool calls'),
            h(
              'dd',
              { class: detail.toolCallsFailed > 0 ? 'tool-count warn' : 'tool-count' },
              detail.toolCallsFailed > 0
                ? `⚠ ${detail.toolCalls} (${detail.toolCallsFailed} failed: check the output against them)`
                : String(detail.toolCalls),
            ),
          ]
        : []),
    ),
  );
  if (detail.attempts.length === 0) panel.append(h('p', { class: 'muted' }, 'Not started yet.'));
  for (const attempt of detail.attempts) {
    const { state, label, toolCallsFailed } = attemptLabel(attempt);
    const warned = state === 'completed' && toolCallsFailed > 0;
    const section = h(
      'div',
      { class: `attempt ${state}${warned ? ' tool-warn' : ''}`, 'data-attempt': attempt.attempt, 'data-state': state },
      h(
        'h3',
        {},
        `attempt ${attempt.attempt}: `,
        h('span', { class: `attempt-state ${state}` }, label),
        // A completed attempt whose calls failed: its output may claim what a failed call did not do.
        warned
          ? h(
              'span',
              { class: 'tag tool-warn', title: `${toolFailureText(toolCallsFailed)}: check the output against them` },
              `⚠ ${toolFailureText(toolCallsFailed)}`,
            )
          : '',
      ),
      h(
        'p',
        { class: 'muted' },
        `${attempt.agent}${attempt.clone ? ` (clone ${attempt.clone})` : ''} · ${attempt.endMs !== undefined ? duration(attempt.endMs - attempt.startMs) : 'running'} · ${attempt.calls} calls · ${(attempt.inputTokens + attempt.outputTokens).toLocaleString()} tokens · ${dollars(attempt.costUsd)}`,
      ),
    );
    if (attempt.feedback && attempt.feedback.length > 0) {
      // What this retry was told: the verifier's reasons for the earlier attempts (their outputs are above).
      const told = h('ul', { class: 'retry-feedback' });
      for (const entry of attempt.feedback)
        told.append(h('li', {}, h('b', {}, `attempt ${entry.attempt} (${entry.verdict})`), ` ${entry.reason}`));
      section.append(h('h4', {}, 'told of earlier attempts'), told);
    }
    if (attempt.error) section.append(h('p', { class: 'error' }, attempt.error));
    for (const verdict of attempt.verdicts)
      section.append(
        h('p', { class: `verdict ${verdict.verdict}` }, h('b', {}, verdict.verdict), ` ${verdict.reason}`),
      );
    if (attempt.toolCalls.length > 0) {
      const list = h('ol', { class: 'tool-calls' });
      for (const call of attempt.toolCalls) list.append(toolCall(call));
      const failed = attempt.toolCalls.filter((/** @type {any} */ call) => call.ok === false).length;
      section.append(
        h('h4', {}, `tool calls (${attempt.toolCalls.length}${failed > 0 ? `, ${failed} failed` : ''})`),
        list,
      );
    }
    if (attempt.team) section.append(h('h4', {}, 'team'), drawTeam(attempt.team));
    if (attempt.outputHtml !== undefined) {
      const output = h('div', { class: 'output markdown' });
      // The one place HTML is inserted: markdown-it's output with raw HTML disabled (see render-markdown.ts).
      output.innerHTML = attempt.outputHtml;
      for (const link of output.querySelectorAll('a')) link.setAttribute('rel', 'noopener noreferrer');
      section.append(output);
    }
    panel.append(section);
  }
  return panel;
}

/**
 * A tool call with its arguments and its result (or error) as text, pretty-printed JSON when it is not a string.
 * @param {any} call a ToolCallView (src/ui/task-detail.ts)
 */
function toolCall(call) {
  const state =
    call.ok === undefined ? 'running' : call.ok ? `ok${call.truncated ? ', truncated' : ''}` : (call.code ?? 'failed');
  return h(
    'li',
    { class: call.ok === false ? 'failed' : '', 'data-tool': call.name },
    h('code', {}, call.name),
    call.simulated ? h('span', { class: 'tag sim', title: 'answered by a model, not by the API' }, 'simulated') : '',
    h('span', { class: 'muted' }, ` ${state}${call.durationMs !== undefined ? ` · ${duration(call.durationMs)}` : ''}`),
    h('pre', { class: 'args' }, clip(asText(call.args))),
    call.ok === undefined
      ? ''
      : call.ok
        ? h('pre', { class: 'result' }, clip(asText(call.result)))
        : h('pre', { class: 'error' }, clip(call.error ?? 'failed')),
  );
}

/** @param {unknown} value */
function asText(value) {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? '';
  } catch {
    return String(value);
  }
}

/** @param {string | undefined} text */
function clip(text) {
  const value = text ?? '';
  return value.length > 2000 ? `${value.slice(0, 2000)}…` : value;
}
