/**
 * package-lock.json must let `npm ci` work on every platform: each optional platform package that a locked package
 * names needs an entry, or npm refuses the lock as out of sync with package.json.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { completeLock, missingOptionalDependencies, platformOfName } from '../../scripts/complete-lockfile.mjs';

const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8'));

describe('package-lock.json', () => {
  it('has an entry for every optional dependency of every locked package (npm ci on any platform)', () => {
    expect(missingOptionalDependencies(lock)).toEqual([]);
  });

  it('pins each platform entry to its os and cpu, so other platforms skip it', () => {
    for (const [key, entry] of Object.entries(lock.packages as Record<string, { os?: string[]; cpu?: string[] }>)) {
      if (!/@rollup\/rollup-|@msgpackr-extract\/|@esbuild\//.test(key)) continue;
      expect(entry.os, key).toHaveLength(1);
      expect(entry.cpu, key).toHaveLength(1);
    }
  });

  it('completes a lock whose platform entries the registry did not serve', () => {
    const partial = {
      packages: {
        '': { devDependencies: { rollup: '^4' } },
        'node_modules/rollup': {
          version: '4.1.0',
          dev: true,
          optionalDependencies: {
            '@rollup/rollup-linux-x64-gnu': '4.1.0',
            '@rollup/rollup-darwin-arm64': '4.1.0',
            '@rollup/rollup-linux-arm-musleabihf': '4.1.0',
          },
        },
        'node_modules/@rollup/rollup-linux-x64-gnu': { version: '4.1.0', dev: true, optional: true },
      },
    };
    const { added, problems } = completeLock(partial);
    expect(problems).toEqual([]);
    expect(added).toEqual(['@rollup/rollup-darwin-arm64@4.1.0', '@rollup/rollup-linux-arm-musleabihf@4.1.0']);
    expect(partial.packages).toMatchObject({
      'node_modules/@rollup/rollup-darwin-arm64': {
        version: '4.1.0',
        os: ['darwin'],
        cpu: ['arm64'],
        dev: true,
        optional: true,
      },
      'node_modules/@rollup/rollup-linux-arm-musleabihf': { os: ['linux'], cpu: ['arm'], libc: ['musl'] },
    });
    expect(missingOptionalDependencies(partial)).toEqual([]);
  });

  it('reads os, cpu and libc from platform package names', () => {
    expect(platformOfName('@rollup/rollup-linux-x64-gnu')).toEqual({ os: ['linux'], cpu: ['x64'], libc: ['glibc'] });
    expect(platformOfName('@rollup/rollup-win32-x64-gnu')).toEqual({ os: ['win32'], cpu: ['x64'] });
    expect(platformOfName('@msgpackr-extract/msgpackr-extract-darwin-x64')).toEqual({ os: ['darwin'], cpu: ['x64'] });
    expect(platformOfName('fsevents')).toBeUndefined();
  });
});
