/** The WeftError a synchronous call throws; fails the test when it returns or throws anything else. */
import { WeftError } from '../../src/errors.js';

export function thrownError(run: () => unknown): WeftError {
  try {
    run();
  } catch (error) {
    if (error instanceof WeftError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}
