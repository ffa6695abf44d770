/**
 * Just enough of a browser to play the Gobang demo's files in Node: a fake DOM built from the ids in index.html,
 * and timers that run only when the test flushes them. The game's scripts run unchanged in a vm context, so the
 * test checks that the files the agents wrote fit together (ids, globals, load order), not a copy of them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import vm from 'node:vm';

type Listener = () => void;

export class FakeElement {
  readonly children: FakeElement[] = [];
  readonly attributes = new Map<string, string>();
  className = '';
  hidden = false;
  disabled = false;
  type = '';
  private text = '';
  private readonly listeners = new Map<string, Listener[]>();

  constructor(
    readonly tagName: string,
    readonly id = '',
  ) {}

  get textContent(): string {
    return this.text + this.children.map((child) => child.textContent).join('');
  }

  set textContent(value: string) {
    this.children.length = 0;
    this.text = value;
  }

  get classList(): { contains(name: string): boolean } {
    return { contains: (name) => this.className.split(/\s+/).includes(name) };
  }

  appendChild(child: FakeElement): FakeElement {
    this.children.push(child);
    return child;
  }

  setAttribute(name: string, value: string): void {
    this.attributes.set(name, String(value));
  }

  getAttribute(name: string): string | null {
    return this.attributes.get(name) ?? null;
  }

  addEventListener(type: string, listener: Listener): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }

  /** Like a browser: a click on a disabled button does nothing. */
  click(): void {
    if (this.disabled) return;
    for (const listener of this.listeners.get('click') ?? []) listener();
  }
}

export interface Page {
  byId(id: string): FakeElement;
  /** The board's cells, row by row. */
  cells(): FakeElement[];
  cell(row: number, col: number): FakeElement;
  /** Runs every pending timer (the computer's moves), including ones they schedule. */
  flushTimers(): void;
  pendingTimers(): number;
}

/** The ids of the elements in an HTML file, with their tag names and whether they start hidden. */
export function elementsOf(html: string): { tag: string; id: string; hidden: boolean }[] {
  const found: { tag: string; id: string; hidden: boolean }[] = [];
  for (const match of html.matchAll(/<([a-zA-Z][\w-]*)\b([^>]*)>/g)) {
    const attributes = match[2] ?? '';
    const id = /\bid\s*=\s*["']([^"']+)["']/.exec(attributes)?.[1];
    if (id) found.push({ tag: (match[1] ?? '').toLowerCase(), id, hidden: /(^|\s)hidden(\s|=|$)/.test(attributes) });
  }
  return found;
}

/** The `src` of each `<script>` in index.html, in order. */
export function scriptsOf(html: string): string[] {
  return [...html.matchAll(/<script\b[^>]*\bsrc\s*=\s*["']([^"']+)["'][^>]*>/g)].map((match) => match[1] ?? '');
}

/** Loads `<dir>/index.html` and runs its scripts in order, as a browser would with `defer`. */
export function openPage(dir: string): Page {
  const html = readFileSync(join(dir, 'index.html'), 'utf8');
  const elements = new Map<string, FakeElement>();
  for (const { tag, id, hidden } of elementsOf(html)) {
    const element = new FakeElement(tag, id);
    element.hidden = hidden;
    elements.set(id, element);
  }
  const document = {
    getElementById: (id: string) => elements.get(id) ?? null,
    createElement: (tag: string) => new FakeElement(tag.toLowerCase()),
  };
  let nextTimer = 1;
  const timers = new Map<number, () => void>();
  const context = vm.createContext({
    document,
    console,
    setTimeout: (callback: () => void) => {
      const id = nextTimer++;
      timers.set(id, callback);
      return id;
    },
    clearTimeout: (id: number) => void timers.delete(id),
  });
  for (const src of scriptsOf(html)) {
    vm.runInContext(readFileSync(join(dir, src), 'utf8'), context, { filename: src });
  }
  const byId = (id: string): FakeElement => {
    const element = elements.get(id);
    if (!element) throw new Error(`index.html has no element with id="${id}"`);
    return element;
  };
  return {
    byId,
    cells: () => byId('board').children,
    cell: (row, col) => {
      const cell = byId('board').children[row * 15 + col];
      if (!cell) throw new Error(`no cell at row ${row}, column ${col}`);
      return cell;
    },
    flushTimers: () => {
      for (let guard = 0; timers.size > 0; guard++) {
        if (guard > 10_000) throw new Error('timers keep scheduling timers');
        const [id, callback] = timers.entries().next().value as [number, () => void];
        timers.delete(id);
        callback();
      }
    },
    pendingTimers: () => timers.size,
  };
}

/** Runs a browser script in a fresh context and returns that context's globals (e.g. GobangRules). */
export function loadScript(path: string): Record<string, unknown> {
  const context = vm.createContext({});
  vm.runInContext(readFileSync(path, 'utf8'), context, { filename: path });
  return context as Record<string, unknown>;
}
