/** The pure parts of tools files: `${env:NAME}` references and allowHosts entries. */
import { describe, expect, it } from 'vitest';
import { isHostAllowed, parseAllowedHost } from '../../src/tools/allow-hosts.js';
import { hasEnvRefs, resolveEnvRefs } from '../../src/tools/env-refs.js';

describe('resolveEnvRefs', () => {
  it('substitutes set variables and lists their values as secrets', () => {
    expect(resolveEnvRefs('Bearer ${env:TOKEN} / ${env:_B2}', { TOKEN: 't-1', _B2: 'b' })).toEqual({
      ok: true,
      value: 'Bearer t-1 / b',
      secrets: ['t-1', 'b'],
    });
    expect(resolveEnvRefs('no references', {})).toEqual({ ok: true, value: 'no references', secrets: [] });
  });

  it('names unset, empty and malformed references, never a value', () => {
    expect(resolveEnvRefs('${env:A}${env:B}${env:C}', { A: 'secret-a', B: '' })).toEqual({
      ok: false,
      problems: ['environment variable B is empty', 'environment variable C is not set'],
    });
    for (const text of ['${env:}', '${env:1X}', '${env:A-B}', '${ENV:A}', '${env:A']) {
      const resolved = resolveEnvRefs(text, { A: 'a' });
      expect(resolved.ok, text).toBe(false);
      if (!resolved.ok) expect(resolved.problems[0]).toContain('malformed ${env:NAME} reference');
    }
    // Inherited object keys are not variables.
    expect(resolveEnvRefs('${env:constructor}', {})).toMatchObject({ ok: false });
  });
});

describe('allowHosts', () => {
  it('matches a host on any port, or host:port on that port only; names case-insensitively', () => {
    const list = [parseAllowedHost('LocalHost'), parseAllowedHost('127.0.0.1:4100'), parseAllowedHost('[::1]:8080')];
    expect(list).toEqual([{ host: 'localhost' }, { host: '127.0.0.1', port: 4100 }, { host: '::1', port: 8080 }]);
    const allowed = list.filter((entry) => typeof entry !== 'string');
    expect(isHostAllowed(new URL('http://localhost:9/x'), allowed)).toBe(true);
    expect(isHostAllowed(new URL('http://127.0.0.1:4100/x'), allowed)).toBe(true);
    expect(isHostAllowed(new URL('http://127.0.0.1:4101/x'), allowed)).toBe(false);
    expect(isHostAllowed(new URL('http://127.0.0.1/x'), allowed)).toBe(false);
    expect(isHostAllowed(new URL('http://[::1]:8080/x'), allowed)).toBe(true);
    expect(isHostAllowed(new URL('http://localhost.evil.example/x'), allowed)).toBe(false);
    expect(isHostAllowed(new URL('http://127.0.0.1:4100@evil.example/x'), allowed)).toBe(false);
    expect(isHostAllowed(new URL('https://api.example.com/x'), [{ host: 'api.example.com', port: 443 }])).toBe(true);
  });

  it('reads an entry as URLs read hosts, so that one written another way matches the requests it names', () => {
    const entries = ['2130706433', '[::ffff:127.0.0.1]', '::FFFF:7f00:1:4100', '0x7f.0.0.2'];
    expect(entries.map(parseAllowedHost)).toEqual([
      { host: '127.0.0.1' },
      { host: '::ffff:7f00:1' },
      { host: '::ffff:7f00:1:4100' },
      { host: '127.0.0.2' },
    ]);
    const allowed = entries.slice(0, 2).map(parseAllowedHost) as { host: string }[];
    expect(isHostAllowed(new URL('http://127.0.0.1:4100/x'), allowed)).toBe(true);
    expect(isHostAllowed(new URL('http://[::ffff:127.0.0.1]/x'), allowed)).toBe(true);
    expect(isHostAllowed(new URL('http://127.0.0.2/x'), allowed)).toBe(false);
    expect(typeof parseAllowedHost('exa mple.com')).toBe('string');
    expect(typeof parseAllowedHost('a%00b')).toBe('string');
  });

  it('refuses entries that are not hosts', () => {
    for (const entry of ['', 'http://x', '*.example.com', 'a/b', 'host:0', 'host:70000', 'host:x', 'u@host']) {
      expect(typeof parseAllowedHost(entry), entry).toBe('string');
    }
  });
});

describe('hasEnvRefs', () => {
  it('leaves nothing behind that changes how the next text resolves', () => {
    expect(hasEnvRefs('plain')).toBe(false);
    expect(hasEnvRefs('Bearer ${env:TOKEN}')).toBe(true);
    expect(resolveEnvRefs('${env:}', {})).toMatchObject({ ok: false });
  });
});
