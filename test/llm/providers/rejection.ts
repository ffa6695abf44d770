/** The WeftError a promise rejects with; fails the test when it resolves or rejects with anything else. */
import { expect } from 'vitest';
import { WeftError } from '../../../src/errors.js';

export async function rejection(promise: Promise<unknown>): Promise<WeftError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(WeftError);
  return error as WeftError;
}
