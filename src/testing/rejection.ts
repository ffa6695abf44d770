import { WeftError } from '../errors.js';
import type { StoreSuiteApi } from './store-suite-api.js';

/**
 * A function that awaits a promise expected to reject with a WeftError and returns that error; the test fails when
 * the promise resolves or rejects with anything else.
 */
export function rejectionWith(expect: StoreSuiteApi['expect']): (promise: Promise<unknown>) => Promise<WeftError> {
  return async (promise) => {
    try {
      await promise;
    } catch (error) {
      expect(error).toBeInstanceOf(WeftError);
      return error as WeftError;
    }
    throw new Error('expected the call to fail, but it succeeded');
  };
}
