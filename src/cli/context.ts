/** What every command needs: the Weft home, its config, the store and the model. */
import {
  costOf,
  createModel,
  DEFAULT_PRICES,
  describeStore,
  mergePrices,
  openExistingRunStore,
  openRunStore,
  requestedModelName,
  resolveHome,
  resolveModelSpec,
  storeSpecFrom,
  withResilience,
  type ChatModel,
  type ChatResult,
  type RunStore,
} from '../core.js';
import { WeftError } from '../errors.js';
import type { WeftConfig } from './config.js';
import { loadConfig } from './load-config.js';

export interface CommonFlags {
  readonly home?: string;
  readonly model?: string;
  readonly store?: string;
  readonly json?: boolean;
}

export interface Context {
  readonly home: string;
  readonly config: WeftConfig;
  /** `--store`, else WEFT_STORE, else the config's `store`; undefined means SQLite in the home. */
  readonly storeSpec: string | undefined;
}

export async function loadContext(flags: CommonFlags, env: NodeJS.ProcessEnv = process.env): Promise<Context> {
  const home = resolveHome({ ...(flags.home !== undefined ? { flag: flags.home } : {}), env, cwd: process.cwd() });
  const config = await loadConfig(home);
  const storeSpec = storeSpecFrom({
    ...(flags.store !== undefined ? { flag: flags.store } : {}),
    ...(config.store !== undefined ? { config: config.store } : {}),
    env,
  });
  return { home, config, storeSpec };
}

export async function openStore(context: Pick<Context, 'home' | 'storeSpec'>): Promise<RunStore> {
  return openRunStore(storeOptions(context));
}

/** For read-only commands: the store, or undefined when there is none yet (reading never creates one). */
export async function openExistingStore(context: Pick<Context, 'home' | 'storeSpec'>): Promise<RunStore | undefined> {
  return openExistingRunStore(storeOptions(context));
}

/** Where the store is, for messages ("No run … in <place>"). */
export function storePlace(context: Pick<Context, 'home' | 'storeSpec'>): string {
  return describeStore(storeOptions(context));
}

/** `No run "<id>" in <store>`: the run is not in the store these commands read (NOT_FOUND, exit 2). */
export function runNotFound(runId: string, context: Pick<Context, 'home' | 'storeSpec'>): WeftError {
  return new WeftError('NOT_FOUND', `No run "${runId}" in ${storePlace(context)} (see \`weft runs\`)`, {
    location: { field: '<runId>' },
  });
}

function storeOptions(context: Pick<Context, 'home' | 'storeSpec'>): { home: string; store?: string } {
  return { home: context.home, ...(context.storeSpec !== undefined ? { store: context.storeSpec } : {}) };
}

export interface ModelContext {
  readonly model: ChatModel;
  readonly source: string;
  readonly costOf: (result: ChatResult, modelId?: string) => number;
}

/** Real providers get at most this many calls in flight unless the config says otherwise. */
export const DEFAULT_PROVIDER_CONCURRENCY = 8;

/**
 * Resolves `--model` (or config, env, Ollama) and wraps it with retries, a per-call timeout and a per-provider
 * concurrency cap. Scripted models are left bare: their errors are never transient.
 */
export async function loadModel(
  flag: string | undefined,
  config: WeftConfig,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ModelContext> {
  const resolved = await resolveModelSpec({
    ...(flag !== undefined ? { flag } : {}),
    config: { ...(config.model !== undefined ? { model: config.model } : {}) },
    env,
  });
  const base = await createModel(resolved.spec, {
    env,
    ...(config.maxOutputTokens !== undefined ? { maxOutputTokens: config.maxOutputTokens } : {}),
  });
  const concurrency = config.providerConcurrency ?? (base.kind === 'real' ? DEFAULT_PROVIDER_CONCURRENCY : undefined);
  const model =
    base.kind === 'scripted'
      ? base
      : withResilience(base, {
          timeoutMs: (config.callTimeoutSeconds ?? 300) * 1000,
          retry: { retries: config.retries ?? 3 },
          ...(concurrency !== undefined ? { concurrency } : {}),
        });
  const prices = mergePrices(DEFAULT_PRICES, config.prices ?? {});
  return {
    model,
    source: resolved.source,
    // Priced by the model the spec asked for, then the full spec (`ollama:`, `local:` are free), then the name the
    // server reported: a llama.cpp server reports its file path, which no price table knows.
    // A call made elsewhere (no modelId) already reports the model its spec asked for.
    costOf: (result, modelId) =>
      base.kind !== 'real'
        ? 0
        : costOf(
            modelId === undefined ? [result.model] : [requestedModelName(modelId), modelId, result.model],
            result.usage,
            prices,
          ),
  };
}

/** Makes the model of a spec the way `--model` is made (retries, timeout, concurrency cap): for team files' specs. */
export function modelMaker(config: WeftConfig): (spec: string) => Promise<ChatModel> {
  return async (spec) => (await loadModel(spec, config)).model;
}

export function requireValue<T>(value: T | undefined, field: string): T {
  if (value === undefined) throw new WeftError('BAD_INPUT', `${field} is required`, { location: { field } });
  return value;
}
