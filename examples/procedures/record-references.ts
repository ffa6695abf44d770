/**
 * `npm run example:record-references [-- NAME…]`: records the API's answers into each procedure's
 * references.jsonl (a fresh business API per session; `{{field}}` arguments filled from earlier results). Run it
 * after changing a reference's calls or the API; test/examples/procedure-references.test.ts checks they replay.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadToolsFile } from '../../src/tools/tools-file.js';
import { startBusinessApi } from '../business-api/business-api.js';
import {
  PROCEDURE_TOOLS,
  PROCEDURES_DIR,
  type ReferenceSession,
  readJsonLines,
  replaySession,
} from './reference-replay.js';

const wanted = process.argv.slice(2);
const api = await startBusinessApi();
try {
  for (const [name, toolsFile] of Object.entries(PROCEDURE_TOOLS)) {
    if (wanted.length > 0 && !wanted.includes(name)) continue;
    const path = join(PROCEDURES_DIR, name, 'references.jsonl');
    const set = await loadToolsFile(toolsFile, { env: { BUSINESS_API_URL: api.url } });
    try {
      const recorded: ReferenceSession[] = [];
      for (const session of readJsonLines<ReferenceSession>(path)) {
        api.reset();
        recorded.push((await replaySession(set, session, { fill: true })).session);
      }
      writeFileSync(path, `${recorded.map((session) => JSON.stringify(session)).join('\n')}\n`);
      process.stdout.write(`${name}: ${recorded.length} sessions recorded\n`);
    } finally {
      await set.close();
    }
  }
} finally {
  await api.close();
}
