/**
 * The text of `outputs/@all.md`, where a run of more than OUTPUT_FILES_LIMIT accepted outputs keeps them: one
 * section per subtask in plan order, each under an anchor (run-paths.ts outputAnchor) that report.md and
 * `weft run --json` link to, the output fenced so that nothing in it can end its section. Pure.
 */
import { outputAnchor } from '../store/run-paths.js';
import { fenceFor } from '../text/fence.js';

export function renderAllOutputs(outputs: readonly { readonly id: string; readonly output: string }[]): string {
  const parts = [
    '# Accepted outputs\n\n',
    `${outputs.length} subtasks, in plan order. One output as it is: \`weft show <run> --output <subtask>\`.\n`,
  ];
  for (const { id, output } of outputs) {
    const fence = fenceFor(output);
    const anchor = outputAnchor(id);
    // A plain id is its own anchor; any other (a plan file allows any text) is quoted, so it stays one heading line.
    const heading = anchor === id ? id : JSON.stringify(id);
    parts.push(`\n<a id="${anchor}"></a>\n\n## ${heading}\n\n${fence}text\n`);
    parts.push(output.endsWith('\n') ? output : `${output}\n`, `${fence}\n`);
  }
  return parts.join('');
}
