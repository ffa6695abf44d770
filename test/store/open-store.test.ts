import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import { openRunStore, resolveHome, storeSpecFrom } from '../../src/store/open-store.js';

describe('openRunStore', () => {
  let home: string;
  beforeEach(async () => {
    home = join(await mkdtemp(join(tmpdir(), 'weft-home-')), '.weft');
  });
  afterEach(async () => {
    await rm(resolve(home, '..'), { recursive: true, force: true });
  });

  it('opens SQLite at <home>/weft.db, creating the home folder', async () => {
    const store = await openRunStore({ home });
    await store.createRun({ runId: 'r1', task: 't', model: 'm', options: {} });
    await store.close();
    expect(existsSync(join(home, 'weft.db'))).toBe(true);
    const again = await openRunStore({ home });
    expect((await again.listRuns()).map((run) => run.runId)).toEqual(['r1']);
    await again.close();
  });

  it('opens SQLite at an explicit sqlite:<path>', async () => {
    const path = join(home, 'other.db');
    const store = await openRunStore({ home, store: `sqlite:${path}` });
    await store.close();
    expect(existsSync(path)).toBe(true);
    expect(existsSync(join(home, 'weft.db'))).toBe(false);
  });

  it.each(['postgres://weft:pw-123@127.0.0.1:1/weft', 'postgresql://127.0.0.1:1/db'])(
    'opens Postgres for %s (here: unreachable, a STORE error without the password, no home folder)',
    async (url) => {
      const error = await openRunStore({ home, store: url }).catch((failure: unknown) => failure);
      expect(error).toBeInstanceOf(WeftError);
      expect(error).toMatchObject({
        code: 'STORE',
        message: expect.stringContaining('Cannot reach Postgres at ') as unknown,
      });
      expect((error as WeftError).message).not.toContain('pw-123');
      expect(existsSync(home)).toBe(false);
    },
  );

  it.each(['mysql://x', 'sqlite:'])('rejects the store spec %s as bad input', async (spec) => {
    const error = await openRunStore({ home, store: spec }).catch((failure: unknown) => failure);
    expect(error).toMatchObject({ code: 'BAD_INPUT' });
  });

  it('does not repeat the password of a misspelt Postgres URL', async () => {
    const error = await openRunStore({ home, store: 'postgress://ann:secret-9@db/weft' }).catch(
      (failure: unknown) => failure,
    );
    expect(error).toMatchObject({ code: 'BAD_INPUT' });
    expect((error as WeftError).message).toContain('postgress://ann@db/weft');
    expect((error as WeftError).message).not.toContain('secret-9');
  });
});

describe('storeSpecFrom', () => {
  const url = 'postgres://weft@db/weft';
  it('prefers the flag, then WEFT_STORE, then the config', () => {
    expect(storeSpecFrom({ flag: 'sqlite:a.db', config: 'sqlite:c.db', env: { WEFT_STORE: url } })).toBe('sqlite:a.db');
    expect(storeSpecFrom({ config: 'sqlite:c.db', env: { WEFT_STORE: url } })).toBe(url);
    expect(storeSpecFrom({ config: 'sqlite:c.db', env: { WEFT_STORE: ' ' } })).toBe('sqlite:c.db');
    expect(storeSpecFrom({ env: {} })).toBeUndefined();
  });

  it('rejects an empty --store', () => {
    expect(() => storeSpecFrom({ flag: '', env: {} })).toThrowError(expect.objectContaining({ code: 'BAD_INPUT' }));
  });
});

describe('resolveHome', () => {
  it('prefers the flag, resolved against cwd', () => {
    expect(resolveHome({ flag: 'runs', env: { WEFT_HOME: '/elsewhere' }, cwd: '/work' })).toBe(resolve('/work/runs'));
  });

  it('uses WEFT_HOME when there is no flag', () => {
    expect(resolveHome({ env: { WEFT_HOME: '/data/weft' }, cwd: '/work' })).toBe(resolve('/data/weft'));
  });

  it('falls back to <cwd>/.weft, also when WEFT_HOME is empty', () => {
    expect(resolveHome({ env: {}, cwd: '/work' })).toBe(resolve('/work/.weft'));
    expect(resolveHome({ env: { WEFT_HOME: '' }, cwd: '/work' })).toBe(resolve('/work/.weft'));
  });

  it('rejects an empty --home', () => {
    expect(() => resolveHome({ flag: ' ', env: {}, cwd: '/work' })).toThrowError(
      expect.objectContaining({ code: 'BAD_INPUT' }),
    );
  });
});

describe('splitSchemaParameter', () => {
  it('takes ?schema= off a Postgres URL and leaves other parameters', async () => {
    const { splitSchemaParameter } = await import('../../src/store/open-store.js');
    expect(splitSchemaParameter('postgres://u:p@h:5432/db?schema=team_a&sslmode=disable')).toEqual({
      url: 'postgres://u:p@h:5432/db?sslmode=disable',
      schema: 'team_a',
    });
    expect(splitSchemaParameter('postgres://h/db')).toEqual({ url: 'postgres://h/db' });
  });
});
