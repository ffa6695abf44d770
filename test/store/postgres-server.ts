/**
 * A Postgres server for the store tests.
 *
 * - `WEFT_TEST_POSTGRES_URL` when set (CI: .ci/run starts Debian's cluster and exports it). Used as given: if it
 *   cannot be reached, the tests fail rather than skip.
 * - Otherwise, when Postgres binaries are installed, a throwaway cluster in a temporary folder on 127.0.0.1 and a
 *   free port, with password authentication, stopped and removed after the tests. initdb refuses to run as root,
 *   so as root the cluster runs as the `postgres` user (through runuser).
 * - Otherwise the caller skips, printing `skipReason`.
 *
 * Each test gets its own schema (`fresh`), dropped again by `dispose`, so tests never see each other's rows.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

export interface TestPostgres {
  /** A URL to a database the tests may create schemas in. */
  readonly url: string;
  /** Where it came from, for the log. */
  readonly source: string;
  /** A connection pool to that database, for setting up and inspecting. */
  readonly admin: pg.Pool;
  /** A schema name no other test uses. */
  freshSchema(): string;
  /** Drops a schema and everything in it. */
  dropSchema(schema: string): Promise<void>;
  /** Closes the pool; stops and removes a throwaway cluster. */
  stop(): Promise<void>;
}

export type TestPostgresResult = { readonly server: TestPostgres } | { readonly skipReason: string };

let counter = 0;

function withAdmin(url: string, source: string, stopServer: () => Promise<void>): TestPostgres {
  const admin = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 5000 });
  admin.on('error', () => undefined);
  return {
    url,
    source,
    admin,
    freshSchema: () => {
      counter += 1;
      return `weft_test_${process.pid}_${counter}_${Math.random().toString(36).slice(2, 8)}`;
    },
    dropSchema: async (schema) => {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema.replace(/"/g, '""')}" CASCADE`);
    },
    stop: async () => {
      await admin.end();
      await stopServer();
    },
  };
}

/** The newest installed Postgres `bin` folder holding initdb and pg_ctl, if any. */
function findPostgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((name) => /^\d+(\.\d+)?$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    for (const version of versions) {
      const bin = join(root, version, 'bin');
      if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'))) return bin;
    }
  }
  for (const folder of (process.env['PATH'] ?? '').split(':')) {
    const initdb = join(folder, 'initdb');
    if (folder !== '' && existsSync(initdb)) {
      const bin = dirname(realpathSync(initdb));
      if (existsSync(join(bin, 'pg_ctl'))) return bin;
    }
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

function idOf(user: string, flag: '-u' | '-g'): number | undefined {
  const result = spawnSync('id', [flag, user], { encoding: 'utf8' });
  const value = Number.parseInt(result.stdout, 10);
  return result.status === 0 && Number.isInteger(value) ? value : undefined;
}

async function startThrowawayCluster(bin: string): Promise<TestPostgres> {
  const asRoot = process.getuid?.() === 0;
  let prefix: string[] = [];
  let owner: { uid: number; gid: number } | undefined;
  if (asRoot) {
    const uid = idOf('postgres', '-u');
    const gid = idOf('postgres', '-g');
    if (uid === undefined || gid === undefined)
      throw new Error('running as root and there is no postgres user to run initdb as');
    if (spawnSync('runuser', ['--help']).status !== 0) throw new Error('running as root and runuser is not available');
    prefix = ['runuser', '-u', 'postgres', '--'];
    owner = { uid, gid };
  }
  const exec = async (command: string, args: string[]): Promise<void> => {
    const full = [...prefix, command, ...args];
    await run(full[0] as string, full.slice(1), { timeout: 60_000 });
  };

  const dir = await mkdtemp(join(tmpdir(), 'weft-pg-'));
  const data = join(dir, 'data');
  const password = `pw-${Math.random().toString(36).slice(2, 12)}`;
  const passwordFile = join(dir, 'password');
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  if (owner !== undefined) {
    await chown(dir, owner.uid, owner.gid);
    await chown(passwordFile, owner.uid, owner.gid);
  }
  const pgCtl = join(bin, 'pg_ctl');
  let started = false;
  const stopCluster = (): void => {
    if (!started) return;
    started = false;
    const command = [...prefix, pgCtl, '-D', data, '-m', 'immediate', '-w', 'stop'];
    spawnSync(command[0] as string, command.slice(1), { stdio: 'ignore', timeout: 30_000 });
  };
  // Should the test process end without afterAll (a crash), do not leave a server behind.
  process.once('exit', stopCluster);
  try {
    await exec(join(bin, 'initdb'), [
      '-D',
      data,
      '-U',
      'weft',
      `--pwfile=${passwordFile}`,
      '--auth-local=trust',
      '--auth-host=scram-sha-256',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
    ]);
    const port = await freePort();
    // -F: no fsync (a throwaway cluster); the socket goes in the temporary folder, not /var/run/postgresql.
    const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -F`;
    await exec(pgCtl, ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o', serverOptions, 'start']);
    started = true;
    const base = `postgres://weft:${password}@127.0.0.1:${port}`;
    const setup = new pg.Client({ connectionString: `${base}/postgres` });
    await setup.connect();
    await setup.query('CREATE DATABASE weft_test');
    await setup.end();
    return withAdmin(`${base}/weft_test`, `a throwaway Postgres cluster (${bin}) in ${dir}`, async () => {
      stopCluster();
      process.removeListener('exit', stopCluster);
      await rm(dir, { recursive: true, force: true });
    });
  } catch (error) {
    stopCluster();
    process.removeListener('exit', stopCluster);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Finds or starts a server; never throws (a failure becomes the skip reason). */
export async function startTestPostgres(): Promise<TestPostgresResult> {
  const fromEnv = process.env['WEFT_TEST_POSTGRES_URL'];
  if (fromEnv !== undefined && fromEnv !== '') {
    return { server: withAdmin(fromEnv, 'WEFT_TEST_POSTGRES_URL', async () => undefined) };
  }
  const bin = findPostgresBin();
  if (bin === undefined) {
    return {
      skipReason:
        'WEFT_TEST_POSTGRES_URL is not set and no Postgres binaries (initdb, pg_ctl) were found under ' +
        '/usr/lib/postgresql/*/bin or on PATH; install postgresql or set WEFT_TEST_POSTGRES_URL',
    };
  }
  try {
    return { server: await startThrowawayCluster(bin) };
  } catch (error) {
    const detail = error instanceof Error ? error.message.split('\n').slice(0, 6).join(' | ') : String(error);
    return {
      skipReason: `WEFT_TEST_POSTGRES_URL is not set and a throwaway cluster from ${bin} did not start: ${detail}`,
    };
  }
}
