/**
 * No MCP server outlives Weft. `close()` stops a server gracefully; this is the last resort for when it was never
 * awaited: when the process exits (normally, by `process.exit`, or on an uncaught error) every server still
 * running is killed, and so is one whose Weft dies of SIGINT, SIGTERM or SIGHUP that nobody else handles.
 * An exit hook cannot wait, so it kills at once (SIGKILL), and it kills the server's whole process group:
 * a server started as `npx some-server` is a child of npm, which a signal to npm alone would leave running.
 */

const live = new Set<number>();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
let installed = false;

/**
 * Kills the process group led by `pid` (stdio servers are spawned as group leaders; Windows has no groups, so
 * there the process). Never the bare pid on POSIX: once the server is reaped, its pid may be another process's.
 */
export function killServerGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(process.platform === 'win32' ? pid : -pid, signal);
  } catch {
    // Already gone.
  }
}

function killAll(): void {
  for (const pid of live) killServerGroup(pid, 'SIGKILL');
  live.clear();
}

function onExit(): void {
  killAll();
}

/**
 * A signal only Weft's hook listens to would have killed the process without an `exit` event: kill the servers,
 * then die of the same signal as Node would have. When the application handles the signal itself (Weft's CLI
 * cancels the run on the first Ctrl-C), its exit comes later and `onExit` covers it.
 */
function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  killAll();
  uninstall();
  process.kill(process.pid, signal);
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', onExit);
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  process.off('exit', onExit);
  for (const signal of SIGNALS) process.off(signal, onSignal);
}

/** A server process started: it is killed when Weft ends, unless `forgetServerProcess` came first. */
export function rememberServerProcess(pid: number): void {
  live.add(pid);
  install();
}

/** The server is stopped (or stopping under `close()`'s own grace and SIGKILL). */
export function forgetServerProcess(pid: number): void {
  live.delete(pid);
  // With no server left, the process's signals behave as if Weft had never been here.
  if (live.size === 0) uninstall();
}
