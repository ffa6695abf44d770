/**
 * Hostile artifact writes that race the checks: a folder swapped for a symlink to outside while writes go on, and
 * a hard link to an outside file planted in the folder. bench/artifact-race.ts runs the long sweep.
 */
import { describe, expect, it } from 'vitest';
import { artifactRace, hardLinkIsSafe } from '../../bench/artifact-race.js';

describe.skipIf(process.platform === 'win32')('writeArtifacts under attack', () => {
  it('lands nothing outside while a folder is swapped for a symlink, and every reported write is inside', async () => {
    const result = await artifactRace(300, 0.2);
    expect(result.swaps).toBeGreaterThan(0);
    expect(result.landedOutside).toBe(0);
    expect(result.reportedButNotInside).toBe(0);
  });

  it('replaces a hard link planted at the name instead of writing through it', async () => {
    expect(await hardLinkIsSafe()).toBe(true);
  });
});
