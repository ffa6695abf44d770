/**
 * `weft simulate` and `weft dialog eval` end to end through the CLI's main (in-process): the sim model plays the
 * bot, the users and the judge; the procedure's APIs are module tools (test/fixtures/dialog) that log every call
 * and whether it broke a precondition, so violations are counted on the API's side too.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readSessionEvents } from '../../src/dialog/read-session-events.js';
import { sessionStoreOf } from '../../src/dialog/session-store.js';
import { openRunStore } from '../../src/store/open-store.js';
import { jsonDocument } from '../e2e/weft-cli.js';
import { cli as weft } from './cli-harness.js';

const FIXTURES = 'test/fixtures/dialog';
const PDL = `${FIXTURES}/refund.pdl.yaml`;
const PROFILES = `${FIXTURES}/refund-profiles.jsonl`;
const REFERENCES = `${FIXTURES}/refund-references.jsonl`;
const scratch = mkdtempSync(join(tmpdir(), 'weft-simulate-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let logs = 0;
/** A fresh API log file and the environment that points the tools at it. */
function apiLog(): { file: string; env: Record<string, string>; calls: () => { name: string; violation: boolean }[] } {
  const file = join(scratch, `api-${(logs += 1)}.jsonl`);
  writeFileSync(file, '');
  return {
    file,
    env: { WEFT_TEST_API_LOG: file, WEFT_HOME: join(scratch, 'home') },
    calls: () =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { name: string; violation: boolean }),
  };
}

const SIM = ['--model', 'sim:seed=1,violate=0.3', '--user-model', 'sim:seed=2', '--judge', 'sim:seed=3'];

interface SessionJson {
  id: string;
  oow: string[];
  calledApis: string[];
  violationsProposed: number;
  violationsExecuted: number;
}

describe('weft simulate', () => {
  it('with controllers: violations are proposed, none reaches the API; the report matches what the API saw', async () => {
    const log = apiLog();
    const result = await weft(
      ['simulate', PDL, '--profiles', PROFILES, ...SIM, '--sessions', '9', '--oow', '0.3', '--seed', '5', '--json'],
      log.env,
    );
    const document = jsonDocument(result);
    expect(result.code, result.stderr).toBe(0);
    const sessions = document.perSession as SessionJson[];
    expect(document).toMatchObject({ sessions: 9, errors: 0, simulated: true, controllerMode: 'all', oow: 0.3 });
    expect(sessions.map((session) => session.id)).toEqual([
      'ana#1',
      'ben#1',
      'cora#1',
      'ana#2',
      'ben#2',
      'cora#2',
      'ana#3',
      'ben#3',
      'cora#3',
    ]);
    expect(document.violationsProposed as number).toBeGreaterThan(0);
    expect(document.violationsExecuted).toBe(0);
    const calls = log.calls();
    expect(calls.filter((call) => call.violation)).toEqual([]);
    expect(calls.length).toBe(sessions.reduce((sum, session) => sum + session.calledApis.length, 0));
    expect(sessions.some((session) => session.oow.length > 0)).toBe(true);
    expect(result.stderr).toMatch(/simulate 9\/9/);
  });

  it('without controllers the violations execute, and the API sees at least as many calls without valid proof', async () => {
    const log = apiLog();
    const result = await weft(
      ['simulate', PDL, '--profiles', PROFILES, ...SIM, '--sessions', '9', '--no-controllers', '--json'],
      log.env,
    );
    expect(result.code, result.stderr).toBe(0);
    const document = jsonDocument(result);
    expect(document.controllerMode).toBe('none');
    const executed = document.violationsExecuted as number;
    expect(executed).toBeGreaterThan(0);
    // Each premature call lacks the proof its preconditions would have given (drawn arguments), so the API flags it;
    // it may flag more (a later repeat of such a call, with its preconditions met by then, still lacks the proof).
    expect(log.calls().filter((call) => call.violation).length).toBeGreaterThanOrEqual(executed);
    expect(document.rejections).toBe(0);
  });

  it('prints a table of in-workflow and out-of-workflow sessions, labelled simulated', async () => {
    const log = apiLog();
    const result = await weft(['simulate', PDL, '--profiles', PROFILES, ...SIM, '--oow', '0.5'], log.env);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toContain('simulated');
    expect(lines[1]).toMatch(/^sessions\s+n\s+success\s+progress\s+tool F1 \(paper\)\s+tool F1 \(Weft\)\s+F1 multiset/);
    // Each figure is named by its protocol.
    expect(result.stdout).toContain(
      "tool F1 (paper): its authors' protocol, micro-averaged over the APIs the bot proposed",
    );
    for (const row of ['all', 'in-workflow', 'intent switching', 'procedure jumping', 'irrelevant answering'])
      expect(lines.some((line) => line.startsWith(row))).toBe(true);
    expect(result.stdout).toContain('sim:seed=1,violate=0.3 (sim model): bot');
    expect(result.stderr).toContain('simulating 3 sessions of "Refund" with 3 profiles');
  });

  it('says under the table why the category rows add up to more than the sessions, with the numbers', async () => {
    const log = apiLog();
    const args = ['simulate', PDL, '--profiles', PROFILES, ...SIM, '--oow', '1', '--sessions', '12'];
    const result = await weft(args, log.env);
    expect(result.code, result.stderr).toBe(0);
    const rows = result.stdout
      .split('\n')
      .map((line) => /^(all|in-workflow|intent switching|procedure jumping|irrelevant answering) +(\d+) /.exec(line))
      .filter((match) => match !== null);
    const all = Number(rows.find((match) => match[1] === 'all')![2]);
    const sum = rows.filter((match) => match[1] !== 'all').reduce((total, match) => total + Number(match[2]), 0);
    expect(all).toBe(12);
    expect(sum).toBeGreaterThan(all);
    expect(result.stdout).toContain(
      `the rows under "all" add up to ${sum}, more than its ${all} sessions: a session with out-of-workflow turns of several categories counts in each of them`,
    );
  });

  it("runs the procedure's controller module once per decision (not once from the CLI and again from the engine)", async () => {
    const log = apiLog();
    const home = join(scratch, 'guarded');
    const result = await weft(
      ['simulate', `${FIXTURES}/refund-guarded.pdl.yaml`, '--profiles', PROFILES, ...SIM, '--keep-sessions', '--json'],
      { ...log.env, WEFT_HOME: home },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(log.calls().map((call) => call.name)).not.toContain('refund_order');
    const sessions = jsonDocument(result).perSession as { sessionId: string }[];
    const store = sessionStoreOf(await openRunStore({ home }));
    try {
      let decisions = 0;
      for (const { sessionId } of sessions) {
        const events = (await store.sessionEvents(sessionId)).map(
          (stored) => stored.event as { type: string; turn?: number; attempt?: number; controller?: string },
        );
        for (const decision of events.filter((event) => event.type === 'decision')) {
          decisions++;
          const verdicts = events.filter(
            (event) =>
              event.type === 'verdict' &&
              event.controller === 'business-hours' &&
              event.turn === decision.turn &&
              event.attempt === decision.attempt,
          );
          expect(verdicts).toHaveLength(1);
        }
      }
      expect(decisions).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });

  it('--keep-sessions keeps each session in the store, with the events the report was computed from', async () => {
    const log = apiLog();
    const home = join(scratch, 'kept');
    const result = await weft(['simulate', PDL, '--profiles', PROFILES, ...SIM, '--keep-sessions', '--json'], {
      ...log.env,
      WEFT_HOME: home,
    });
    expect(result.code, result.stderr).toBe(0);
    const sessions = jsonDocument(result).perSession as (SessionJson & { sessionId: string; turns: number })[];
    const store = sessionStoreOf(await openRunStore({ home }));
    try {
      for (const session of sessions) {
        expect(session.sessionId).toMatch(/^s-/);
        const events = await readSessionEvents(store, session.sessionId);
        expect(events.filter((event) => event.type === 'user-message')).toHaveLength(session.turns);
        expect(events.filter((event) => event.type === 'tool-call')).toHaveLength(session.calledApis.length);
        expect(events.at(-1)?.type).toBe('session-end');
      }
    } finally {
      await store.close();
    }
  });

  it('bad input: located profile errors, unknown APIs, missing flags — exit 2, nothing run', async () => {
    const log = apiLog();
    const bad = join(scratch, 'bad-profiles.jsonl');
    writeFileSync(
      bad,
      `${readFileSync(PROFILES, 'utf8').split('\n')[0]}\n{"id": "x", "persona": "p", "goals": ["g"], "requried_apis": []}\n`,
    );
    const located = await weft(['simulate', PDL, '--profiles', bad, ...SIM], log.env);
    expect(located.code).toBe(2);
    expect(located.stderr).toContain(
      `${bad}:2:45 requried_apis: unknown field "requried_apis" (did you mean "required_apis"?)`,
    );
    const unknownApi = join(scratch, 'unknown-api.jsonl');
    writeFileSync(unknownApi, '{"id": "x", "persona": "p", "goals": ["g"], "required_apis": ["refund"]}\n');
    const named = await weft(['simulate', PDL, '--profiles', unknownApi, ...SIM], log.env);
    expect(named.code).toBe(2);
    expect(named.stderr).toContain(`${unknownApi}:1 required_apis[0]: unknown API "refund"`);
    const missing = await weft(['simulate', PDL, '--profiles', PROFILES, '--model', 'sim:seed=1'], log.env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--user-model is required');
    const badOow = await weft(['simulate', PDL, '--profiles', PROFILES, ...SIM, '--oow', '2'], log.env);
    expect(badOow.code).toBe(2);
    expect(badOow.stderr).toContain('--oow expects a number between 0 and 1, got "2"');
    const tooMany = await weft(['simulate', PDL, '--profiles', PROFILES, ...SIM, '--sessions', '1000000'], log.env);
    expect(tooMany.code).toBe(2);
    expect(tooMany.stderr).toContain('--sessions expects at most 100000');
    const junk = join(scratch, 'junk.jsonl');
    writeFileSync(junk, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0xff, 0xfe]));
    const binary = await weft(['simulate', PDL, '--profiles', junk, ...SIM], log.env);
    expect(binary.code).toBe(2);
    expect(binary.stderr).toContain('holds binary data');
    expect(log.calls()).toEqual([]);
  });
});

describe('weft dialog eval', () => {
  it('scores every bot move of the references with teacher forcing; OOW moves apart; no API is called', async () => {
    const log = apiLog();
    const result = await weft(
      ['dialog', 'eval', PDL, '--references', REFERENCES, '--model', 'sim:seed=1', '--judge', 'sim:seed=2', '--json'],
      log.env,
    );
    expect(result.code, result.stderr).toBe(0);
    const document = jsonDocument(result);
    expect(document).toMatchObject({ turns: 11, errors: 0, simulated: true });
    expect((document.byOow as { oow: { turns: number } }).oow.turns).toBe(1);
    expect((document.perTurn as unknown[]).length).toBe(11);
    const passRate = document.passRate as number;
    expect(passRate).toBeGreaterThan(0);
    expect(passRate).toBeLessThanOrEqual(1);
    expect(log.calls()).toEqual([]);

    const human = await weft(
      ['dialog', 'eval', PDL, '--references', REFERENCES, '--model', 'sim:seed=1', '--judge', 'sim:seed=2'],
      log.env,
    );
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^turns\s+n\s+pass rate\s+tool turns/m);
    expect(human.stdout).toMatch(/^out-of-workflow\s+1\s/m);
  });

  it('a broken references file is refused with its line and field', async () => {
    const bad = join(scratch, 'bad-references.jsonl');
    writeFileSync(bad, '{"id": "r", "messages": [{"role": "bot", "tool": "x", "ok": "yes"}]}\n');
    const result = await weft(
      ['dialog', 'eval', PDL, '--references', bad, '--model', 'sim:seed=1', '--judge', 'sim:seed=2'],
      apiLog().env,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${bad}:1:55 messages[0].ok: "ok" must be true or false`);
  });
});
