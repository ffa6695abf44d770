/** A few points of the crash sweep in every `npm test`; all 20 run in `npm run test:long` (CI runs both). */
import { describe, it } from 'vitest';
import { crashSweep } from './crash-harness.js';

describe('crash and resume', () => {
  it('resumes runs killed with SIGKILL at 4 seeded points to the uninterrupted final state', async () => {
    await crashSweep(4);
  }, 120_000);
});
