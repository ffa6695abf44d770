/** The WeftError a promise rejects with; fails the test when it resolves or rejects with anything else. */
import { expect } from 'vitest';
import { rejectionWith } from '../../src/testing/rejection.js';

export const rejection = rejectionWith(expect);
