/**
 * From a `redis://` URL to connection options, and a quick reachability check so that an unreachable Redis is a
 * clear error within seconds instead of a client retrying forever.
 */
import { WeftError } from '../errors.js';
import { loadQueueModules, type RedisOptions } from './load-queue.js';

/** How long a first connection may take before Redis counts as unreachable. */
export const REDIS_CONNECT_TIMEOUT_MS = 3000;

/** Parses `redis://[user:password@]host[:port][/db]` (or `rediss://`). Throws BAD_INPUT naming `field`. */
export function redisOptions(url: string, field = '--redis'): RedisOptions {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new WeftError(
      'BAD_INPUT',
      `Expected a Redis URL like redis://127.0.0.1:6379, got ${JSON.stringify(displayRedisUrl(url))}`,
      {
        location: { field },
      },
    );
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new WeftError(
      'BAD_INPUT',
      `Expected a redis:// or rediss:// URL, got ${JSON.stringify(displayRedisUrl(url))}`,
      {
        location: { field },
      },
    );
  }
  const db = parsed.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db))
    throw new WeftError('BAD_INPUT', `Expected a database number after the host, got ${JSON.stringify(db)}`, {
      location: { field },
    });
  return {
    host: parsed.hostname || '127.0.0.1',
    port: parsed.port ? Number(parsed.port) : 6379,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(db !== '' ? { db: Number(db) } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    // BullMQ requires null for its blocking connections; reconnects back off up to 2 s.
    maxRetriesPerRequest: null,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  };
}

/** The URL without its password, for messages. */
export function displayRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    // Not a URL to the parser, but it may still hold a password, even one with `/` or `#` in it (not encoded):
    // everything up to the last `@` goes.
    return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[\s\S]*@/i, '$1***@');
  }
}

/** Connects once and pings; throws WeftError('BAD_INPUT', 'Cannot reach Redis at …') within about 3 s. */
export async function checkRedis(url: string, field = '--redis'): Promise<void> {
  const { Redis } = await loadQueueModules();
  const client = new Redis({
    ...redisOptions(url, field),
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  let lastError: Error | undefined;
  client.on('error', (error) => (lastError = error)); // reported below, not as an unhandled event
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.connect().then(() => client.ping()),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${REDIS_CONNECT_TIMEOUT_MS + 500} ms`)),
          REDIS_CONNECT_TIMEOUT_MS + 500,
        );
      }),
    ]);
  } catch (error) {
    // ioredis rejects with "Connection is closed"; the error event said why (ECONNREFUSED, ENOTFOUND, …).
    const reason = (lastError ?? (error instanceof Error ? error : undefined))?.message ?? String(error);
    throw new WeftError('BAD_INPUT', `Cannot reach Redis at ${displayRedisUrl(url)}: ${reason}`, {
      location: { field },
      retryable: true,
      cause: error,
    });
  } finally {
    clearTimeout(timer);
    client.disconnect();
  }
}
