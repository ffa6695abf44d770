/**
 * The `sim:` model as a judge of a finished run (`weft run --judge-model sim:`): it judges the result the way the
 * strategies bench's independent check does, so fault injection can be measured from the command line offline.
 */
import { describe, expect, it } from 'vitest';
import { simModel } from '../../src/llm/sim-model.js';
import { judgeTask } from '../../src/run/judge-task.js';

const judge = (result: string) => judgeTask(simModel(), { task: 'build a site', result, artifacts: [] });

describe('sim judge of a finished run', () => {
  it('passes a result whose every final section is sound', async () => {
    await expect(judge('## t4\n\n<html>home</html>\n\n## t5\n\nstyles done')).resolves.toMatchObject({ passed: true });
  });

  it('fails a result with one masked section, one built on a missing input, or none at all', async () => {
    await expect(judge('## t4\n\n<html>home</html>\n\n## t5\n\nnone')).resolves.toMatchObject({ passed: false });
    await expect(judge('page text [missing input from t2]')).resolves.toMatchObject({ passed: false });
    await expect(judge('')).resolves.toMatchObject({ passed: false });
  });
});
