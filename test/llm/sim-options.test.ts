import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import {
  defaultSimOptions,
  formatSimOptions,
  parseLatency,
  parseSimOptions,
  registerSimOptions,
  sampleLatencyMs,
  simProbabilityOption,
  validateSimOptions,
} from '../../src/llm/sim-options.js';
import { mulberry32 } from '../../src/llm/seeded-random.js';

function specError(text: string): WeftError {
  try {
    parseSimOptions(text);
  } catch (error) {
    expect(error).toBeInstanceOf(WeftError);
    expect((error as WeftError).code).toBe('MODEL_SPEC');
    return error as WeftError;
  }
  throw new Error(`expected ${text} to be rejected`);
}

describe('parseSimOptions', () => {
  it('parses the docs/contracts.md example', () => {
    expect(parseSimOptions('latency=lognormal(3,0.5),fail=0.1,badjson=0.05,error=0.02,seed=7')).toEqual({
      ...defaultSimOptions(),
      latency: { kind: 'lognormal', mu: 3, sigma: 0.5 },
      fail: 0.1,
      badjson: 0.05,
      error: 0.02,
      seed: 7,
    });
  });

  it('gives the defaults for an empty spec and accepts a sim: prefix and spaces', () => {
    expect(parseSimOptions('')).toEqual(defaultSimOptions());
    expect(defaultSimOptions()).toMatchObject({
      latency: { kind: 'fixed', ms: 0 },
      accuracy: 1,
      seed: 1,
      tasks: { min: 4, max: 8 },
    });
    expect(parseSimOptions('sim: fail = 0.5 , latency = uniform( 1 , 2 )')).toMatchObject({
      fail: 0.5,
      latency: { kind: 'uniform', min: 1, max: 2 },
    });
  });

  it('parses tasks, width and accuracy', () => {
    expect(parseSimOptions('tasks=3-12,width=2,accuracy=0.7')).toMatchObject({
      tasks: { min: 3, max: 12 },
      width: 2,
      accuracy: 0.7,
    });
    expect(parseSimOptions('tasks=5').tasks).toEqual({ min: 5, max: 5 });
  });

  it('parses the dialog options violate and noise (default 0), shown in the id only when set', () => {
    expect(defaultSimOptions()).toMatchObject({ violate: 0, noise: 0 });
    const options = parseSimOptions('violate=0.3,noise=0.05,seed=2');
    expect(options).toMatchObject({ violate: 0.3, noise: 0.05 });
    expect(formatSimOptions(options)).toMatch(/,violate=0\.3,noise=0\.05$/);
    expect(parseSimOptions(formatSimOptions(options))).toEqual(options);
    expect(formatSimOptions(parseSimOptions('seed=2'))).not.toMatch(/violate|noise/);
    expect(specError('violate=1.01').location?.field).toBe('violate');
    expect(specError('noise=-0.5').message).toMatch(/"noise".*probability/);
    expect(specError('noise=lots').location?.field).toBe('noise');
  });

  it('names the key in every error', () => {
    expect(specError('speed=3').location?.field).toBe('speed');
    expect(specError('fail=abc').location?.field).toBe('fail');
    expect(specError('fail=1.5').message).toMatch(/"fail".*probability/);
    expect(specError('badjson=-0.1').location?.field).toBe('badjson');
    expect(specError('accuracy=2').location?.field).toBe('accuracy');
    expect(specError('seed=1.5').location?.field).toBe('seed');
    expect(specError('tasks=8-4').location?.field).toBe('tasks');
    expect(specError('tasks=0').location?.field).toBe('tasks');
    expect(specError('width=0').location?.field).toBe('width');
    expect(specError('latency=normal(1,2)').location?.field).toBe('latency');
    expect(specError('latency=uniform(5,1)').location?.field).toBe('latency');
    expect(specError('latency=fixed(-1)').location?.field).toBe('latency');
    expect(specError('latency=lognormal(3)').location?.field).toBe('latency');
    expect(specError('latency=lognormal(3,-1)').location?.field).toBe('latency');
    expect(specError('fail=0.1,fail=0.2').message).toMatch(/twice/);
    expect(specError('fail').message).toMatch(/key=value/);
  });

  it('round-trips through formatSimOptions', () => {
    const probability = fc.double({ min: 0, max: 1, noNaN: true });
    fc.assert(
      fc.property(
        probability,
        probability,
        fc.integer({ min: -1000, max: 1000 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 0, max: 20 }),
        fc.option(fc.integer({ min: 1, max: 9 }), { nil: undefined }),
        (fail, error, seed, min, extra, width) => {
          const options = parseSimOptions(
            `fail=${fail},error=${error},seed=${seed},tasks=${min}-${min + extra}${width ? `,width=${width}` : ''}`,
          );
          expect(parseSimOptions(formatSimOptions(options))).toEqual(options);
        },
      ),
    );
  });
});

describe('latency', () => {
  it('samples each distribution', () => {
    const random = mulberry32(3);
    expect(sampleLatencyMs(parseLatency('fixed(12)'), random)).toBe(12);
    for (let i = 0; i < 100; i++) {
      const ms = sampleLatencyMs(parseLatency('uniform(10,20)'), random);
      expect(ms).toBeGreaterThanOrEqual(10);
      expect(ms).toBeLessThan(20);
      expect(sampleLatencyMs(parseLatency('lognormal(3,0.5)'), random)).toBeGreaterThan(0);
    }
  });
});

describe('registerSimOptions', () => {
  it('keeps the ids models always had, whichever engine registered a key', () => {
    expect(formatSimOptions(parseSimOptions(''))).toBe(
      'latency=fixed(0),fail=0,badjson=0,error=0,accuracy=1,seed=1,tasks=4-8',
    );
    expect(formatSimOptions(parseSimOptions('reference=w.json,follow=0.8,toolcalls=1,width=2,clock=virtual'))).toBe(
      'latency=fixed(0),fail=0,badjson=0,error=0,accuracy=1,follow=0.8,seed=1,tasks=4-8,width=2,clock=virtual,toolcalls=1,reference=w.json',
    );
  });

  it("lists the engines' keys among the known ones when a key is unknown", () => {
    const message = specError('speed=3').message;
    for (const key of ['latency', 'seed', 'fail', 'tasks', 'accuracy', 'answers', 'violate', 'mistake', 'reference'])
      expect(message).toContain(key);
  });

  it("accepts a key of a caller's own, with its default, validation and place in the id, until unregistered", () => {
    const unregister = registerSimOptions([simProbabilityOption('typo', { default: 0.25 })]);
    try {
      expect(parseSimOptions('')).toMatchObject({ typo: 0.25 });
      expect(formatSimOptions(parseSimOptions('typo=0.5'))).toMatch(/,tasks=4-8,typo=0\.5$/);
      expect(formatSimOptions(parseSimOptions(''))).not.toContain('typo');
      expect(specError('typo=2')).toMatchObject({ location: { field: 'typo' } });
      expect(() => registerSimOptions([simProbabilityOption('typo')])).toThrow(/registered already/);
      expect(() => registerSimOptions([simProbabilityOption('fail')])).toThrow(/registered already/);
    } finally {
      unregister();
    }
    expect(specError('typo=0.5').message).toMatch(/unknown option/);
    expect(parseSimOptions('')).not.toHaveProperty('typo');
  });

  it('checks options given in code by the same rules, and refuses keys nobody registered', () => {
    expect(() => validateSimOptions({ ...defaultSimOptions(), noise: 3 })).toThrow(/"noise".*probability/);
    expect(() => validateSimOptions({ ...defaultSimOptions(), speed: 1 } as never)).toThrow(/unknown option/);
  });
});
