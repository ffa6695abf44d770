/**
 * `npm run example:api [-- --port 4100 --db orders.db]`: starts the business API and prints its URL; Ctrl-C stops it.
 */
import { parseArgs } from 'node:util';
import { startBusinessApi } from './business-api.js';

const { values } = parseArgs({
  options: { port: { type: 'string', default: process.env.PORT ?? '4100' }, db: { type: 'string' } },
});
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  process.stderr.write(`--port expects a port number, got "${values.port}"\n`);
  process.exit(2);
}
const api = await startBusinessApi({ port, ...(values.db ? { dbPath: values.db } : {}) });
process.stdout.write(`business API listening on ${api.url}\n`);
process.stdout.write(`  export BUSINESS_API_URL=${api.url}   # what examples/business-api/*tools.yaml read\n`);
const stop = (): void => {
  void api.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
