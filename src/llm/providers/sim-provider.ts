/** `sim:<options>`: the simulated model (latency, failures, plans) for benchmarks and tests. */
import type { ModelProviderDescriptor } from '../provider.js';
import { parseSimOptions, simOptionKeys } from '../sim-options.js';

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
    const { simModel } = await import('../sim-model.js');
    const simOptions = parseSimOptions(spec.options);
    // Options that name a file (a team's answer key) are read here, where the working folder is known.
    const loaded = new Map<string, unknown>();
    for (const key of simOptionKeys()) {
      const value = (simOptions as unknown as Record<string, unknown>)[key.name];
      if (key.load !== undefined && value !== undefined) loaded.set(key.name, await key.load(value, cwd));
    }
    return simModel(simOptions, { loaded });
  },
  noEmbedding: '"sim:" is a simulated chat model, not an embedding model',
};
