/** The sim's answer key (`answers=`): gold answers known only inside the simulator. */
import { describe, expect, it } from 'vitest';
import { WeftError } from '../../src/errors.js';
import { parseSimAnswerKey } from '../../src/team/sim-answer-key.js';
import { simModel } from '../../src/llm/sim-model.js';
import { formatSimOptions, parseSimOptions } from '../../src/llm/sim-options.js';

describe('sim answers=', () => {
  it('reads gold answers as the sim gives them: the option text a letter names, else the answer', () => {
    const key = parseSimAnswerKey(
      [
        JSON.stringify({ id: 1, question: 'What is  17 × 6?', choices: ['92', '102'], answer: '(b)' }),
        JSON.stringify({ id: 2, question: 'Capital of Australia?', answer: 'Canberra' }),
        JSON.stringify({ id: 3, question: 'No answer here' }),
        JSON.stringify({ id: 4, question: 'Sum?', answer: 55 }),
      ].join('\n'),
      'data.jsonl',
    );
    expect([...key]).toEqual([
      ['What is 17 × 6?', '102'],
      ['Capital of Australia?', 'Canberra'],
      ['Sum?', '55'],
    ]);
  });

  it('refuses a key line it cannot use, naming the file and line', () => {
    const bad = (text: string): WeftError => {
      try {
        parseSimAnswerKey(text, 'data.jsonl');
      } catch (error) {
        if (error instanceof WeftError) return error;
      }
      throw new Error('expected a rejection');
    };
    expect(bad('{"question": "Q?", "choices": ["a", "b"], "answer": "C"}')).toMatchObject({
      code: 'MODEL_SPEC',
      location: { file: 'data.jsonl', line: 1, field: 'answers' },
    });
    expect(bad('\n{"answer": "x"}').location).toMatchObject({ line: 2 });
    expect(bad('{oops').message).toContain('not JSON');
  });

  it('is a spec option, shown in the id; a model made in code must be given the loaded key', () => {
    const options = parseSimOptions('accuracy=0.7,answers=examples/teams/mc-sample.jsonl');
    expect(options.answers).toBe('examples/teams/mc-sample.jsonl');
    expect(formatSimOptions(options)).toMatch(/,answers=examples\/teams\/mc-sample\.jsonl$/);
    expect(() => simModel(options)).toThrow(/answers=.*needs its file read/);
    expect(simModel(options, { loaded: new Map([['answers', new Map()]]) }).id).toContain('answers=');
  });
});
