/**
 * A user's input file as text (a tools file, a PDL file, profiles, a workflow), refusing what is not one before
 * reading: a folder, a named pipe or device (a pipe nobody writes to would block the read for ever, in a thread that
 * even a second SIGTERM waits for; /dev/zero would never end), or a file over `maxBytes`. Errors are BAD_INPUT
 * naming the file: `the <what> is N bytes; at most M`, or `cannot read the <what>: <reason>`.
 */
import { readFile, stat } from 'node:fs/promises';
import { WeftError } from '../errors.js';

export async function readInputFile(path: string, what: string, maxBytes: number): Promise<string> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw Object.assign(new Error('it is a folder'), { code: 'EISDIR' });
    if (!info.isFile()) throw new Error('it is not a regular file');
    if (info.size > maxBytes) {
      throw new WeftError('BAD_INPUT', `the ${what} is ${info.size} bytes; at most ${maxBytes}`, {
        location: { file: path },
      });
    }
    return await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof WeftError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (error as Error).message;
    throw new WeftError('BAD_INPUT', `cannot read the ${what}: ${reason}`, { location: { file: path }, cause: error });
  }
}
