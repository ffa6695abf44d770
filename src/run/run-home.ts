/**
 * The Weft home a run's folder goes in (`<home>/runs/<runId>`): the one the store was opened on, or the one given,
 * and when both are known they must be the same folder, so that a run's files never land apart from its store.
 */
import { resolve } from 'node:path';
import { WeftError } from '../errors.js';
import type { RunStore } from '../store/run-store.js';

export function runHome(store: Pick<RunStore, 'home'>, home: string | undefined): string {
  if (home === undefined) {
    if (store.home !== undefined) return store.home;
    throw new WeftError(
      'BAD_INPUT',
      'No Weft home: open the store with openRunStore({ home }) or pass home, the folder run files go in',
      { location: { field: 'home' } },
    );
  }
  if (store.home !== undefined && resolve(home) !== resolve(store.home))
    throw new WeftError(
      'BAD_INPUT',
      `The home ${JSON.stringify(resolve(home))} is not the one the store was opened on (${JSON.stringify(store.home)}): run files would land apart from the run's store`,
      { location: { field: 'home' } },
    );
  return home;
}
