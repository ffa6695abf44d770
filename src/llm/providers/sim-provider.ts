/** `sim:<options>`: the simulated model (latency, failures, plans) for benchmarks and tests. */
import { resolve as resolvePath } from 'node:path';
import type { ModelProviderDescriptor } from '../provider.js';
import { parseSimOptions } from '../sim-options.js';

export type SimSpec = { readonly provider: 'sim'; readonly options: string };

const format = (spec: SimSpec) => `sim:${spec.options}`;

export const simProvider: ModelProviderDescriptor<SimSpec> = {
  name: 'sim',
  form: 'sim:<options>                        e.g. sim:latency=lognormal(3,0.5),fail=0.1,seed=7',
  aliases: ['simulated', 'simulation'],
  // The options are parsed (and validated) by the sim model itself; empty means its defaults.
  parse: (rest) => ({ provider: 'sim', options: rest }),
  format,
  describe: format,
  check: (spec) => void parseSimOptions(spec.options),
  async create(spec, { cwd }) {
    const [{ simModel }, { loadSimAnswerKey }] = await Promise.all([
      import('../sim-model.js'),
      import('../sim-answer-key.js'),
    ]);
    const simOptions = parseSimOptions(spec.options);
    if (simOptions.answers === undefined) return simModel(simOptions);
    return simModel(simOptions, { answerKey: await loadSimAnswerKey(resolvePath(cwd, simOptions.answers)) });
  },
  noEmbedding: '"sim:" is a simulated chat model, not an embedding model',
};
