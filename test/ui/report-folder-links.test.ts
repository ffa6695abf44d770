/**
 * `weft serve --reports FOLDER` lists the folder's `*.json` reports, and what it finds there must stay there: a
 * symbolic link to a file outside, or to a folder, is listed with its problem and never read; a link to another
 * file of the folder is read. A file or folder the user names itself is followed wherever it leads.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboard } from './engine-helpers.js';

const worfeval = { count: 1, skipped: 0, f1_chain: 0.5, f1_graph: 0.4, byScenario: {}, samples: [] };
let root: string;
let folder: string;
let outside: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'weft-report-links-'));
  folder = join(root, 'reports');
  outside = join(root, 'outside');
  mkdirSync(folder);
  mkdirSync(outside);
  writeFileSync(join(folder, 'own.json'), JSON.stringify(worfeval));
  // Outside the folder: a valid report (so only the link rule can keep it from showing) and a folder.
  writeFileSync(join(outside, 'secret.json'), JSON.stringify({ ...worfeval, count: 99 }));
  mkdirSync(join(outside, 'dir.json'));
  symlinkSync(join(outside, 'secret.json'), join(folder, 'to-file.json'));
  symlinkSync(join(outside, 'dir.json'), join(folder, 'to-folder.json'));
  symlinkSync('../outside/secret.json', join(folder, 'relative.json'));
  symlinkSync(join(folder, 'own.json'), join(folder, 'inside.json'));
  // A folder reached through a link the user named: its own files are its own.
  symlinkSync(outside, join(root, 'named-link'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Listed {
  id: string;
  name: string;
  kind?: string;
  problem?: string;
  stats?: { label: string; value: number }[];
}

describe('dashboard: links in a --reports folder', () => {
  it('does not follow a link out of the folder, to a file or to a folder; follows one inside it', async () => {
    const get = dashboard({ reports: [folder] });
    const { body } = await get('/api/reports');
    const byName = Object.fromEntries((body.reports as Listed[]).map((report) => [report.name, report]));
    expect(Object.keys(byName).sort()).toEqual([
      'inside.json',
      'own.json',
      'relative.json',
      'to-file.json',
      'to-folder.json',
    ]);
    expect(byName['own.json']?.kind).toBe('worfeval');
    expect(byName['inside.json']?.kind).toBe('worfeval');
    for (const name of ['to-file.json', 'relative.json', 'to-folder.json']) {
      expect(byName[name]?.kind, name).toBeUndefined();
      expect(byName[name]?.problem, name).toMatch(/leads out of its folder; the dashboard does not follow it/);
    }
    // The report itself is refused too, not only its line in the list.
    const one = await get(`/api/reports/${byName['to-file.json']?.id}`);
    expect(one.body.report).toBeUndefined();
    expect(one.body.problem).toMatch(/leads out of its folder/);
  });

  it('follows a file or folder the user named, even through a link', async () => {
    const get = dashboard({ reports: [join(folder, 'to-file.json'), join(root, 'named-link')] });
    const { body } = await get('/api/reports');
    const shown = (body.reports as Listed[]).filter((report) => report.kind === 'worfeval').map((r) => r.name);
    // secret.json twice: named through the link, and found in the named folder (its own file).
    expect(shown).toEqual(['to-file.json', 'secret.json']);
  });
});
