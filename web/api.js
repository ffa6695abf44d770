// @ts-check
/** The dashboard's JSON API, same origin; the token travels in the HttpOnly cookie the first visit set. */

export class ApiError extends Error {
  /** @param {number} status @param {string} code @param {string} message */
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * @param {string} path
 * @param {AbortSignal} [signal]
 * @returns {Promise<any>}
 */
export async function getJson(path, signal) {
  const response = await fetch(path, { credentials: 'same-origin', signal: signal ?? null });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = body?.error ?? {};
    throw new ApiError(
      response.status,
      error.code ?? 'HTTP',
      error.message ?? `${response.status} ${response.statusText}`,
    );
  }
  return body;
}
