/** The built-in controllers a PDL's `controllers:` settings turn on (all three by default), with their limits. */
import type { Controller } from './controller.js';
import { dependencyController } from './dependency-controller.js';
import type { PdlControllerSettings } from './pdl.js';
import { repetitionController } from './repetition-controller.js';
import { DEFAULT_MAX_TURNS, sessionLengthController } from './session-length-controller.js';

export function builtInControllers(settings: PdlControllerSettings): Controller[] {
  const controllers: Controller[] = [];
  const dependency = settings.dependency ?? true;
  if (dependency !== false) {
    controllers.push(
      dependencyController({
        pre: dependency === true || dependency === 'both' || dependency === 'pre',
        post: dependency === true || dependency === 'both' || dependency === 'post',
      }),
    );
  }
  const repetition = settings.repetition ?? true;
  if (repetition !== false) {
    controllers.push(repetitionController(repetition === true ? {} : repetition));
  }
  const maxTurns = sessionTurnLimit(settings);
  if (maxTurns !== undefined) controllers.push(sessionLengthController(maxTurns));
  return controllers;
}

/** The turn limit of the session-length controller; undefined when it is off. */
export function sessionTurnLimit(settings: PdlControllerSettings): number | undefined {
  const sessionLength = settings.sessionLength ?? true;
  if (sessionLength === false) return undefined;
  return sessionLength === true ? DEFAULT_MAX_TURNS : (sessionLength.maxTurns ?? DEFAULT_MAX_TURNS);
}
