/**
 * `npm run example:procedure-service [-- --model SPEC --port 4300 --home DIR]`: the order-return procedure as a web
 * service, over the business API (started here, in memory). Without --model the bot is the sim model (simulated
 * replies, offline); give a real one (e.g. openai:gpt-4o-mini) to talk to a real model.
 *   curl -s -XPOST localhost:4300/sessions
 *   curl -s -XPOST localhost:4300/sessions/<id>/messages -d '{"text":"I want to return my webcam"}'
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startBusinessApi } from '../business-api/business-api.js';
import { PROCEDURE_TOOLS, PROCEDURES_DIR } from '../procedures/reference-replay.js';
import { createModel, loadToolsFile } from '../../src/index.js';
import { startProcedureService } from './procedure-service.js';

const { values } = parseArgs({
  options: {
    model: { type: 'string', default: 'sim:seed=1,latency=fixed(0)' },
    port: { type: 'string', default: '4300' },
    home: { type: 'string', default: '.weft' },
  },
});
const api = await startBusinessApi({ port: 0 });
const tools = await loadToolsFile(PROCEDURE_TOOLS['order-return']!, { env: { BUSINESS_API_URL: api.url } });
const service = await startProcedureService({
  pdlFile: join(PROCEDURES_DIR, 'order-return', 'order-return.pdl.yaml'),
  tools,
  model: await createModel(values.model),
  home: values.home,
  port: Number(values.port),
});
process.stdout.write(`order-return procedure served on ${service.url} (bot: ${values.model})\n`);
const stop = (): void => {
  void Promise.all([service.close(), tools.close(), api.close()]).then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
