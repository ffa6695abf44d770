import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ClonePool } from '../../src/run/clone-pool.js';

describe('ClonePool', () => {
  it('always hands out the lowest number not in use', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.nat(50)), { maxLength: 200 }), (steps) => {
        const pool = new ClonePool();
        const inUse = new Set<number>();
        for (const [acquire, pick] of steps) {
          if (acquire || inUse.size === 0) {
            let lowest = 0;
            while (inUse.has(lowest)) lowest += 1;
            const clone = pool.acquire();
            expect(clone).toBe(lowest);
            inUse.add(clone);
          } else {
            const release = [...inUse][pick % inUse.size]!;
            inUse.delete(release);
            pool.release(release);
          }
        }
      }),
    );
  });
});
