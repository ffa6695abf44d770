// @ts-check
/**
 * What a clicked node shows: objective, role, each attempt with its verdicts, tool calls, model calls and cost, and
 * the output as Markdown. The output HTML comes from the server's markdown-it with raw HTML off (inert); every
 * other value goes in as text.
 */
import { getJson } from '../api.js';
import { dollars, duration, h } from '../dom.js';

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
      h('dt', {}, 'role'),
      h('dd', { class: 'role' }, detail.agent ?? ''),
      h('dt', {}, 'after'),
      h('dd', {}, detail.dependsOn.join(', ') || '—'),
      h('dt', {}, 'calls'),
      h('dd', { class: 'calls' }, `${detail.calls} (${dollars(detail.costUsd)})`),
    ),
  );
  if (detail.attempts.length === 0) panel.append(h('p', { class: 'muted' }, 'Not started yet.'));
  for (const attempt of detail.attempts) {
    const section = h(
      'div',
      { class: `attempt ${attempt.status ?? 'running'}`, 'data-attempt': attempt.attempt },
      h('h3', {}, `attempt ${attempt.attempt}: ${attempt.outcome ?? attempt.status ?? 'running'}`),
      h(
        'p',
        { class: 'muted' },
        `${attempt.agent}${attempt.clone ? ` (clone ${attempt.clone})` : ''} · ${attempt.endMs !== undefined ? duration(attempt.endMs - attempt.startMs) : 'running'} · ${attempt.calls} calls · ${(attempt.inputTokens + attempt.outputTokens).toLocaleString()} tokens · ${dollars(attempt.costUsd)}`,
      ),
    );
    if (attempt.error) section.append(h('p', { class: 'error' }, attempt.error));
    for (const verdict of attempt.verdicts)
      section.append(
        h('p', { class: `verdict ${verdict.verdict}` }, h('b', {}, verdict.verdict), ` ${verdict.reason}`),
      );
    if (attempt.toolCalls.length > 0) {
      const list = h('ol', { class: 'tool-calls' });
      for (const call of attempt.toolCalls)
        list.append(
          h(
            'li',
            { class: call.ok === false ? 'failed' : '' },
            h('code', {}, call.name),
            ' ',
            h('span', { class: 'args' }, clip(JSON.stringify(call.args))),
            call.ok === undefined
              ? ' …'
              : call.ok
                ? h(
                    'div',
                    { class: 'result' },
                    clip(typeof call.result === 'string' ? call.result : JSON.stringify(call.result)),
                  )
                : h('div', { class: 'error' }, call.error ?? 'failed'),
          ),
        );
      section.append(list);
    }
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

/** @param {string | undefined} text */
function clip(text) {
  const value = text ?? '';
  return value.length > 2000 ? `${value.slice(0, 2000)}…` : value;
}
