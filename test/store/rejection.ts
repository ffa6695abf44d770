/** The WeftError a promise rejects with; fails the test when it resolves or rejects with anything else. */
import { expect } from 'vitest';
import { WeftError } from '../../src/errors.js';

export async function rejection(promise: Promise<unknown>): Promise<WeftError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(WeftError);
    return error as WeftError;
  }
  throw new Error('expected the call to fail, but it succeeded');
}
