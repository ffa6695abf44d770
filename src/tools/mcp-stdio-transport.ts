/**
 * The stdio transport of an MCP server: the process, its JSON-RPC lines, and what it said on stderr. Weft's own
 * rather than the SDK's StdioClientTransport, which hides what an error message needs (the exit code or signal,
 * the spawn error) and what stopping needs (the process group, a grace Weft chooses); it reuses the SDK's line
 * framing (ReadBuffer, serializeMessage) and its default environment, passed in because the SDK loads lazily.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { forgetServerProcess, killServerGroup, rememberServerProcess } from './mcp-exit-hook.js';

export interface StdioFraming {
  readonly ReadBuffer: new () => { append(chunk: Buffer): void; readMessage(): JSONRPCMessage | null; clear(): void };
  serializeMessage(message: JSONRPCMessage): string;
  getDefaultEnvironment(): Record<string, string>;
}

export interface StdioServerParams {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** How long `close()` waits after closing stdin, and again after SIGTERM, before the next step (default 2 s). */
  readonly graceMs?: number;
}

export interface ServerExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

const STDERR_LINES = 20;
const STDERR_LINE_CHARS = 500;
/** After `exit`, how long to wait for the pipes to close (a grandchild may hold them) before reporting the end. */
const PIPE_CLOSE_WAIT_MS = 200;

export class ChildStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** Set once the process has ended. */
  exit: ServerExit | undefined;
  /** Why Weft stopped the server itself, when it did (a message it could not read). */
  stoppedBecause: string | undefined;
  /** Set when the process could not be started (ENOENT, EACCES). */
  spawnError: NodeJS.ErrnoException | undefined;

  private child: ChildProcess | undefined;
  private readonly buffer: InstanceType<StdioFraming['ReadBuffer']>;
  private readonly stderrLines: string[] = [];
  private stderrPartial = '';
  private closedReported = false;
  private ended: Promise<void> | undefined;
  private holds = 0;
  private started: Promise<void> | undefined;

  constructor(
    private readonly params: StdioServerParams,
    private readonly framing: StdioFraming,
  ) {
    this.buffer = new framing.ReadBuffer();
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The server's last stderr lines (at most 20, each cut to 500 characters). */
  stderrTail(): string[] {
    const partial = this.stderrPartial.trim();
    return partial ? [...this.stderrLines, partial.slice(0, STDERR_LINE_CHARS)] : [...this.stderrLines];
  }

  /** Spawns the process; resolves once it runs. A second call (the SDK's `connect`) returns the same promise. */
  start(): Promise<void> {
    this.started ??= this.spawnServer();
    return this.started;
  }

  private spawnServer(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.params.command, [...this.params.args], {
        env: { ...this.framing.getDefaultEnvironment(), ...this.params.env },
        cwd: this.params.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        // Its own process group, so that stopping it stops whatever it started too (npx, uvx, shells).
        detached: process.platform !== 'win32',
        windowsHide: true,
      });
      this.child = child;
      this.ended = new Promise((settle) => {
        let exited = false;
        const finish = (): void => {
          if (this.closedReported) return;
          this.closedReported = true;
          if (child.pid !== undefined) {
            // Whatever it started is part of it: nothing of the server stays behind.
            killServerGroup(child.pid, 'SIGKILL');
            forgetServerProcess(child.pid);
          }
          settle();
          this.onclose?.();
        };
        child.once('exit', (code, signal) => {
          exited = true;
          this.exit = { code, signal };
          setTimeout(finish, PIPE_CLOSE_WAIT_MS).unref();
        });
        child.once('close', () => (exited ? finish() : undefined));
        child.once('error', (error: NodeJS.ErrnoException) => {
          if (child.pid === undefined) {
            this.spawnError = error;
            this.closedReported = true;
            settle();
            reject(error);
            return;
          }
          this.onerror?.(error);
        });
      });
      child.once('spawn', () => {
        if (child.pid !== undefined) rememberServerProcess(child.pid);
        this.unref();
        resolve();
      });
      child.stdout!.on('data', (chunk: Buffer) => this.receive(chunk));
      child.stderr!.setEncoding('utf8').on('data', (text: string) => this.keepStderr(text));
      // A write to a server that just died fails with EPIPE; the exit that follows is what gets reported.
      child.stdin!.on('error', () => {});
      child.stdout!.on('error', () => {});
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.exit || stdin.destroyed) return Promise.reject(new Error('Not connected'));
    return new Promise((resolve) => {
      if (stdin.write(this.framing.serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /**
   * Keeps Node's event loop alive while the session is in use (starting, a call under way), and lets Weft exit
   * while it is idle: a ToolSet nobody closed must not keep `weft` running (the exit hook then stops the server).
   */
  hold(): void {
    this.holds += 1;
    if (this.holds === 1) this.setRef(true);
  }

  release(): void {
    this.holds = Math.max(0, this.holds - 1);
    if (this.holds === 0) this.setRef(false);
  }

  private unref(): void {
    if (this.holds === 0) this.setRef(false);
  }

  private setRef(ref: boolean): void {
    const child = this.child;
    if (!child) return;
    for (const stream of [child.stdin, child.stdout, child.stderr]) {
      const handle = stream as unknown as { ref?: () => void; unref?: () => void } | null;
      if (ref) handle?.ref?.();
      else handle?.unref?.();
    }
    if (ref) child.ref();
    else child.unref();
  }

  /**
   * Closes stdin (a server's cue to exit, per the MCP spec), waits `graceMs`, then SIGTERM to its process group,
   * waits again, then SIGKILL. Resolves once the process has ended.
   */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || !this.ended || this.closedReported) {
      this.buffer.clear();
      return;
    }
    const graceMs = this.params.graceMs ?? 2000;
    this.setRef(true);
    const waitEnd = (ms: number): Promise<boolean> =>
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), ms);
        void this.ended!.then(() => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    child.stdin?.end();
    if (!(await waitEnd(graceMs)) && child.pid !== undefined) {
      killServerGroup(child.pid, 'SIGTERM');
      if (!(await waitEnd(graceMs))) {
        killServerGroup(child.pid, 'SIGKILL');
        await this.ended;
      }
    }
    this.buffer.clear();
  }

  private receive(chunk: Buffer): void {
    try {
      this.buffer.append(chunk);
    } catch (error) {
      // A message beyond the SDK's 10 MB line limit: the stream cannot be resynchronised.
      this.stoppedBecause = `it sent a message larger than the limit (${(error as Error).message})`;
      this.onerror?.(error as Error);
      if (this.child?.pid !== undefined) killServerGroup(this.child.pid, 'SIGKILL');
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (error) {
        // A line that is not JSON-RPC (a server logging to stdout): reported, and the next line is read.
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  private keepStderr(text: string): void {
    const lines = (this.stderrPartial + text).split('\n');
    this.stderrPartial = (lines.pop() ?? '').slice(-STDERR_LINE_CHARS * 4);
    for (const line of lines) {
      const trimmed = line.trimEnd();
      if (trimmed === '') continue;
      this.stderrLines.push(trimmed.length > STDERR_LINE_CHARS ? `${trimmed.slice(0, STDERR_LINE_CHARS)}…` : trimmed);
      if (this.stderrLines.length > STDERR_LINES) this.stderrLines.shift();
    }
  }
}
