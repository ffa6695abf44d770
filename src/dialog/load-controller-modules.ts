/**
 * Controllers from a user's JS modules (`controllers.modules` in a PDL file): an export that is a Controller, a
 * list of them, or a factory `(options) => Controller | Controller[]`. Checked when loaded, so a broken module is
 * a located error before the first turn, not a crash in the middle of one.
 */
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WeftError } from '../errors.js';
import type { Controller } from './controller.js';
import type { Pdl } from './pdl.js';

export async function loadControllerModules(pdl: Pdl): Promise<Controller[]> {
  const modules = pdl.controllers.modules ?? [];
  const controllers: Controller[] = [];
  for (const [index, spec] of modules.entries()) {
    const field = `controllers.modules[${index}]`;
    const base = pdl.file ? resolve(pdl.file, '..') : process.cwd();
    const path = isAbsolute(spec.path) ? spec.path : resolve(base, spec.path);
    const location = { ...(pdl.file ? { file: pdl.file } : {}), field: `${field}.path` };
    let loaded: Record<string, unknown>;
    try {
      loaded = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
    } catch (error) {
      throw new WeftError('BAD_INPUT', `cannot load the controller module ${spec.path}: ${(error as Error).message}`, {
        location,
        cause: error,
      });
    }
    const name = spec.export ?? 'default';
    let value = loaded[name];
    if (value === undefined) {
      throw new WeftError('BAD_INPUT', `the controller module ${spec.path} has no export "${name}"`, { location });
    }
    if (typeof value === 'function') value = (value as (options: unknown) => unknown)(spec.options ?? {});
    for (const controller of Array.isArray(value) ? value : [value]) {
      controllers.push(checkController(controller, `${spec.path} (${name})`, location));
    }
  }
  return controllers;
}

function checkController(value: unknown, from: string, location: { file?: string; field: string }): Controller {
  const candidate = value as Partial<Controller> | null;
  const ok =
    candidate !== null &&
    typeof candidate === 'object' &&
    typeof candidate.name === 'string' &&
    candidate.name.length > 0 &&
    (candidate.pre === undefined || typeof candidate.pre === 'function') &&
    (candidate.post === undefined || typeof candidate.post === 'function') &&
    (candidate.pre !== undefined || candidate.post !== undefined);
  if (!ok) {
    throw new WeftError(
      'BAD_INPUT',
      `${from} is not a controller: expected { name, pre?(context), post?(action, context) } with pre or post`,
      { location },
    );
  }
  return candidate as Controller;
}
