/**
 * Run ids: `YYYYMMDD-HHMMSS-xxxx` in UTC, e.g. `20261122-044501-7f3a`. They sort by start time (to the second;
 * the random suffix orders runs started within the same second arbitrarily) and are safe as folder names.
 */
import { randomBytes } from 'node:crypto';

export const RUN_ID_PATTERN = /^\d{8}-\d{6}-[0-9a-f]{4}$/;

export function newRunId(date: Date = new Date()): string {
  if (Number.isNaN(date.getTime())) throw new TypeError(`Expected a valid Date for a run id, got ${String(date)}`);
  const two = (value: number): string => String(value).padStart(2, '0');
  const day = `${date.getUTCFullYear()}${two(date.getUTCMonth() + 1)}${two(date.getUTCDate())}`;
  const time = `${two(date.getUTCHours())}${two(date.getUTCMinutes())}${two(date.getUTCSeconds())}`;
  return `${day}-${time}-${randomBytes(2).toString('hex')}`;
}
