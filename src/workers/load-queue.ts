/**
 * BullMQ and ioredis are optional dependencies: loaded on first use, with a MISSING_DEPENDENCY error that says
 * how to install them. Only the few members Weft uses are typed here, so the rest of Weft compiles without them.
 */
import { WeftError } from '../errors.js';

export const QUEUE_INSTALL_HINT = 'Distributed runs need BullMQ and ioredis: npm install bullmq ioredis';

/** ioredis connection options, as BullMQ accepts them. */
export interface RedisOptions {
  readonly host: string;
  readonly port: number;
  readonly username?: string;
  readonly password?: string;
  readonly db?: number;
  readonly tls?: Record<string, never>;
  readonly connectTimeout: number;
  readonly maxRetriesPerRequest: number | null;
  readonly enableOfflineQueue?: boolean;
  readonly lazyConnect?: boolean;
  readonly retryStrategy: (times: number) => number | null;
}

export interface BullJob<Data, Result> {
  readonly id?: string;
  readonly name: string;
  readonly data: Data;
  readonly returnvalue: Result;
  waitUntilFinished(events: BullQueueEvents, ttl?: number): Promise<Result>;
  getState(): Promise<string>;
  remove(): Promise<void>;
}

export interface BullQueue<Data, Result> {
  add(name: string, data: Data, options: Record<string, unknown>): Promise<BullJob<Data, Result>>;
  getJob(id: string): Promise<BullJob<Data, Result> | undefined>;
  waitUntilReady(): Promise<unknown>;
  setMaxListeners(count: number): unknown;
  close(): Promise<void>;
}

/** What QueueEvents reports of a finished job (`returnvalue` already parsed from JSON). */
export interface BullJobEventArgs {
  readonly jobId: string;
  readonly returnvalue?: unknown;
  readonly failedReason?: string;
}

export interface BullQueueEvents {
  on(event: 'completed' | 'failed', listener: (args: BullJobEventArgs) => void): unknown;
  waitUntilReady(): Promise<unknown>;
  setMaxListeners(count: number): unknown;
  close(): Promise<void>;
}

export interface BullWorker {
  on(event: 'error' | 'failed' | 'completed' | 'active' | 'stalled', listener: (...args: unknown[]) => void): unknown;
  waitUntilReady(): Promise<unknown>;
  close(force?: boolean): Promise<void>;
}

export interface RedisClient {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, mode: 'EX' | 'PX', amount: number): Promise<unknown>;
  del(key: string): Promise<number>;
  exists(key: string): Promise<number>;
  rpush(key: string, ...values: string[]): Promise<number>;
  lrange(key: string, start: number, stop: number): Promise<string[]>;
  pexpire(key: string, milliseconds: number): Promise<number>;
  ping(): Promise<string>;
  connect(): Promise<void>;
  disconnect(): void;
  quit(): Promise<unknown>;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

export interface QueueModules {
  Queue: new <Data, Result>(
    name: string,
    options: { connection: RedisOptions; prefix?: string },
  ) => BullQueue<Data, Result>;
  QueueEvents: new (name: string, options: { connection: RedisOptions; prefix?: string }) => BullQueueEvents;
  Worker: new <Data, Result>(
    name: string,
    processor: (job: BullJob<Data, Result>, token?: string, signal?: AbortSignal) => Promise<Result>,
    options: Record<string, unknown> & { connection: RedisOptions },
  ) => BullWorker;
  Redis: new (options: RedisOptions) => RedisClient;
}

let loaded: Promise<QueueModules> | undefined;

/** Imports a package by name; tests pass one that fails, to check the MISSING_DEPENDENCY message. */
export type PackageImporter = (name: 'bullmq' | 'ioredis') => Promise<unknown>;

/** Imports bullmq and ioredis (once), or throws WeftError('MISSING_DEPENDENCY') with the install command. */
export function loadQueueModules(importer?: PackageImporter): Promise<QueueModules> {
  if (importer) return importQueueModules(importer);
  loaded ??= importQueueModules((name) => import(name)).catch((error: unknown) => {
    loaded = undefined;
    throw error;
  });
  return loaded;
}

async function importQueueModules(importer: PackageImporter): Promise<QueueModules> {
  try {
    const bullmq = (await importer('bullmq')) as Pick<QueueModules, 'Queue' | 'QueueEvents' | 'Worker'>;
    const ioredis = (await importer('ioredis')) as { Redis: QueueModules['Redis'] };
    return { Queue: bullmq.Queue, QueueEvents: bullmq.QueueEvents, Worker: bullmq.Worker, Redis: ioredis.Redis };
  } catch (error) {
    throw new WeftError('MISSING_DEPENDENCY', QUEUE_INSTALL_HINT, { cause: error });
  }
}
