/**
 * What main.ts hands each register function: where to print, the cancel signal, how to set the exit code, and the
 * options many commands share (one definition each, so their help reads the same everywhere).
 */
import type { Option } from 'commander';
import type { Output, Streams } from './output.js';

export interface SharedOptions {
  readonly home: Option;
  readonly model: Option;
  readonly json: Option;
  readonly otel: Option;
  readonly otelContent: Option;
  readonly store: Option;
}

export interface CommandContext {
  readonly output: Output;
  readonly streams: Streams;
  readonly signal: AbortSignal;
  readonly setExit: (code: number) => void;
  readonly options: SharedOptions;
}

/** Commander's accumulator for a repeatable option. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
