/** The full crash sweep: 20 SIGKILLed `weft run` processes, each resumed to the uninterrupted state. */
import { describe, it } from 'vitest';
import { crashSweep } from '../e2e/crash-harness.js';

describe('crash and resume, the long sweep', () => {
  it('resumes 20 runs killed with SIGKILL at seeded points to the uninterrupted final state', async () => {
    await crashSweep(20);
  }, 600_000);
});
