/** `<task|file>`: a path to a readable file, or the task itself in plain words. */
import { readFile, stat } from 'node:fs/promises';
import { WeftError } from '../internal.js';

/** Text that looks like a file path: one token with a file extension or a path separator. */
const LOOKS_LIKE_PATH = /^[^\s]+(\.(md|txt|markdown|task|json|yaml|yml)|[/\\][^\s]*)$/i;

/** True for text that is more likely a mistyped file name than a task or question in words. */
export function looksLikePath(text: string): boolean {
  return LOOKS_LIKE_PATH.test(text);
}

export async function readTask(argument: string): Promise<{ task: string; file?: string }> {
  const text = argument.trim();
  if (text === '')
    throw new WeftError('BAD_INPUT', 'The task is empty: give a task in words or a file that holds it', {
      location: { field: '<task>' },
    });
  const info = await stat(text).catch(() => undefined);
  if (info?.isFile()) {
    let content: string;
    try {
      content = await readFile(text, 'utf8');
    } catch (error) {
      throw new WeftError('BAD_INPUT', `Cannot read task file: ${(error as Error).message}`, {
        location: { file: text },
        cause: error,
      });
    }
    if (content.trim() === '') throw new WeftError('BAD_INPUT', 'The task file is empty', { location: { file: text } });
    return { task: content.trim(), file: text };
  }
  if (info?.isDirectory())
    throw new WeftError('BAD_INPUT', 'Expected a task file, got a directory', { location: { file: text } });
  if (looksLikePath(text)) {
    throw new WeftError(
      'BAD_INPUT',
      'Cannot read task file: no such file (to give the task in words, use more than one word)',
      { location: { file: text } },
    );
  }
  return { task: text };
}
