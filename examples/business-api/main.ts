/**
 * `npm run example:api [-- --port 4100 --db orders.db --shared]`: starts the business API and prints its URL; Ctrl-C
 * stops it. `--shared`: one state for every caller (by default each Weft run and chat session gets its own).
 */
import { parseArgs } from 'node:util';
import { startBusinessApi } from './business-api.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.PORT ?? '4100' },
    db: { type: 'string' },
    shared: { type: 'boolean', default: false },
  },
});
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  process.stderr.write(`--port expects a port number, got "${values.port}"\n`);
  process.exit(2);
}
// A second `npm run example:api` on a used port is a common slip: one clear line, not a stack trace.
const api = await startBusinessApi({
  port,
  shared: values.shared,
  ...(values.db ? { dbPath: values.db } : {}),
}).catch((error: unknown) => {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason =
    code === 'EADDRINUSE'
      ? `port ${port} is already in use (is the example API already running? pass --port to pick another)`
      : error instanceof Error
        ? error.message
        : String(error);
  process.stderr.write(`business API: cannot start: ${reason}\n`);
  process.exit(1);
});
process.stdout.write(`business API listening on ${api.url}\n`);
process.stdout.write(`  export BUSINESS_API_URL=${api.url}   # what examples/business-api/*tools.yaml read\n`);
process.stdout.write(
  values.shared
    ? "  one state for every caller (--shared): a second run of a demo finds the first one's returns\n"
    : '  each Weft run and chat session starts from the seed data (the Weft-Scope header its tools send)\n',
);
const stop = (): void => {
  void api.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
