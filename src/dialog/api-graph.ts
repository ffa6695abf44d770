/**
 * The API dependency graph of a procedure: an edge from each precondition to the API that needs it.
 * The dependency controller reads it at run time, checkPdl finds its cycles, and `weft pdl show` draws it (a text
 * listing in dependency order, or Mermaid). Pure: no I/O.
 */
import { escapeMermaidLabel } from '../text/graph-labels.js';
import type { Pdl } from './pdl.js';
import { conditionText } from '../text/result-condition.js';

export interface ApiGraph {
  /** API names in file order (a repeated name once). */
  readonly apis: readonly string[];
  /**
   * `from` must have succeeded before `to` (from is in to's precondition); only between known APIs. `conditions`:
   * what `from`'s latest result must meet as well, written without the API (`is_air == "true"`).
   */
  readonly edges: readonly { readonly from: string; readonly to: string; readonly conditions?: readonly string[] }[];
  /** Every API after its preconditions, ties in file order; an API on a cycle comes where the cycle is broken. */
  readonly order: readonly string[];
  /** Each cycle once, as the APIs along it with the first repeated at the end: `[a, b, a]` = a needs b needs a. */
  readonly cycles: readonly (readonly string[])[];
}

export function apiGraph(pdl: Pick<Pdl, 'apis'>): ApiGraph {
  const apis = [...new Set(pdl.apis.map((api) => api.name))];
  const known = new Set(apis);
  // The first entry of a name is the one that counts (a duplicate is checkPdl's error).
  const needs = new Map<string, string[]>();
  const conditions = new Map<string, NonNullable<Pdl['apis'][number]['conditions']>>();
  for (const api of pdl.apis) {
    if (needs.has(api.name)) continue;
    needs.set(api.name, [...new Set(api.precondition.filter((name) => known.has(name)))]);
    conditions.set(api.name, api.conditions ?? []);
  }
  const edges = apis.flatMap((to) =>
    (needs.get(to) ?? []).map((from) => {
      const on = edgeConditions(conditions.get(to) ?? [], from);
      return on.length > 0 ? { from, to, conditions: on } : { from, to };
    }),
  );
  return { apis, edges, order: dependencyOrder(apis, needs), cycles: findCycles(apis, needs) };
}

/** The conditions among `conditions` on `api`'s result, written without the API. */
function edgeConditions(conditions: NonNullable<Pdl['apis'][number]['conditions']>, api: string): string[] {
  return conditions
    .filter((condition) => condition.api === api)
    .map((condition) => conditionText(condition, { withApi: false }));
}

/** The APIs `name` depends on, directly or through others (not itself unless on a cycle). */
export function dependenciesOf(pdl: Pick<Pdl, 'apis'>, name: string): Set<string> {
  const byName = new Map<string, readonly string[]>();
  for (const api of pdl.apis) if (!byName.has(api.name)) byName.set(api.name, api.precondition);
  const seen = new Set<string>();
  const pending = [...(byName.get(name) ?? [])];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (seen.has(next)) continue;
    seen.add(next);
    pending.push(...(byName.get(next) ?? []));
  }
  return seen;
}

/** Kahn's order, taking the earliest API in the file among those ready; when none is ready (a cycle), the earliest left. */
function dependencyOrder(apis: readonly string[], needs: ReadonlyMap<string, readonly string[]>): string[] {
  const placed = new Set<string>();
  const order: string[] = [];
  while (order.length < apis.length) {
    const ready = apis.find((api) => !placed.has(api) && (needs.get(api) ?? []).every((pre) => placed.has(pre)));
    const next = ready ?? apis.find((api) => !placed.has(api));
    if (next === undefined) break;
    placed.add(next);
    order.push(next);
  }
  return order;
}

/**
 * One cycle per strongly connected component that has one (Tarjan's algorithm, iterative: 500 APIs in a chain
 * must not exhaust the stack), each starting at its earliest API in the file.
 */
function findCycles(apis: readonly string[], needs: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  for (const root of apis) {
    if (index.has(root)) continue;
    const work: { node: string; next: number }[] = [{ node: root, next: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const successors = needs.get(frame.node) ?? [];
      if (frame.next < successors.length) {
        const successor = successors[frame.next++]!;
        if (!index.has(successor)) {
          index.set(successor, counter);
          low.set(successor, counter++);
          stack.push(successor);
          onStack.add(successor);
          work.push({ node: successor, next: 0 });
        } else if (onStack.has(successor)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(successor)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string | undefined;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfLoop = component.length === 1 && (needs.get(frame.node) ?? []).includes(frame.node);
        if (component.length > 1 || selfLoop) components.push(component);
      }
    }
  }
  const position = new Map(apis.map((api, at) => [api, at]));
  return components
    .map((component) => cycleWithin(new Set(component), needs, position))
    .sort((a, b) => (position.get(a[0]!) ?? 0) - (position.get(b[0]!) ?? 0));
}

/** A cycle through a component's earliest API: a breadth-first path back to it, so the cycle named is a short one. */
function cycleWithin(
  members: ReadonlySet<string>,
  needs: ReadonlyMap<string, readonly string[]>,
  position: ReadonlyMap<string, number>,
): string[] {
  const start = [...members].sort((a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0))[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head]!;
    for (const next of needs.get(node) ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [node];
        for (let back = cameFrom.get(node); back !== undefined; back = cameFrom.get(back)) path.push(back);
        return [...path.reverse(), start];
      }
      if (!cameFrom.has(next) && next !== start) {
        cameFrom.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

/**
 * The graph as a Mermaid flowchart: APIs as boxes, an arrow from each precondition to what needs it; answers of the
 * file's with preconditions as rounded boxes, reached by dotted arrows. Built-in answers are left out.
 */
export function pdlMermaid(pdl: Pick<Pdl, 'name' | 'apis' | 'answers'>): string {
  const graph = apiGraph(pdl);
  const known = new Set(graph.apis);
  const lines = ['flowchart TD', `  %% ${oneLine(pdl.name)}`];
  // Ids are prefixed: a name may be a Mermaid keyword (`end`) or the same for an API and an answer.
  for (const api of graph.order) lines.push(`  api_${mermaidId(api)}["${escapeMermaidLabel(api)}"]`);
  const answers = pdl.answers.filter((answer) => !answer.builtIn && answer.precondition.some((pre) => known.has(pre)));
  for (const answer of answers)
    lines.push(`  answer_${mermaidId(answer.name)}(["${escapeMermaidLabel(answer.name)}"])`);
  // A condition on the result labels its arrow: `checkAvailability -- "is_air == true" --> book`.
  for (const edge of graph.edges) {
    const label = edge.conditions ? ` -- "${escapeMermaidLabel(edge.conditions.join(' and '))}" -->` : ' -->';
    lines.push(`  api_${mermaidId(edge.from)}${label} api_${mermaidId(edge.to)}`);
  }
  for (const answer of answers) {
    for (const pre of answer.precondition) {
      if (!known.has(pre)) continue;
      const on = edgeConditions(answer.conditions ?? [], pre);
      const label = on.length > 0 ? ` -. "${escapeMermaidLabel(on.join(' and '))}" .->` : ' -.->';
      lines.push(`  api_${mermaidId(pre)}${label} answer_${mermaidId(answer.name)}`);
    }
  }
  return lines.join('\n');
}

/** `weft pdl show`: the procedure's APIs in dependency order with what they need, take and return; its answers. */
export function pdlText(pdl: Pick<Pdl, 'name' | 'desc' | 'slots' | 'apis' | 'answers'>): string {
  const graph = apiGraph(pdl);
  const byName = new Map<string, Pdl['apis'][number]>();
  for (const api of pdl.apis) if (!byName.has(api.name)) byName.set(api.name, api);
  const lines = [`${oneLine(pdl.name)}${pdl.desc ? ` — ${oneLine(pdl.desc)}` : ''}`];
  if (pdl.slots.length > 0) lines.push('', `Slots: ${pdl.slots.map((slot) => slot.name).join(', ')}`);
  lines.push('', graph.order.length === 0 ? 'APIs: none' : 'APIs, in dependency order:');
  graph.order.forEach((name, at) => {
    const api = byName.get(name)!;
    const returns = api.response.length > 0 ? ` → ${api.response.join(', ')}` : '';
    lines.push(`  ${at + 1}. ${name}(${api.request.join(', ')})${returns}`);
    if (api.precondition.length > 0) lines.push(`       after: ${preconditionLabels(api).join(', ')}`);
    if (api.desc) lines.push(`       ${clip(oneLine(api.desc), 100)}`);
  });
  for (const cycle of graph.cycles) lines.push(`  cycle: ${cycle.join(' → ')} (none of these can ever be called)`);
  lines.push('', 'Answers:');
  for (const answer of pdl.answers) {
    const notes = [
      ...(answer.builtIn ? ['built in'] : []),
      ...(answer.precondition.length > 0 ? [`after: ${preconditionLabels(answer).join(', ')}`] : []),
    ];
    lines.push(`  ${answer.name}${notes.length > 0 ? `  (${notes.join('; ')})` : ''}`);
    if (answer.desc && !answer.builtIn) lines.push(`       ${clip(oneLine(answer.desc), 100)}`);
  }
  return lines.join('\n');
}

/**
 * A precondition as people read it: the APIs named alone, then the conditions (`find_customer,
 * checkAvailability.is_air == "true"`); an API with a condition is not named again.
 */
export function preconditionLabels(entry: Pick<Pdl['apis'][number], 'precondition' | 'conditions'>): string[] {
  const conditioned = new Set((entry.conditions ?? []).map((condition) => condition.api));
  return [
    ...entry.precondition.filter((name) => !conditioned.has(name)),
    ...(entry.conditions ?? []).map((condition) => conditionText(condition)),
  ];
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Names from parsePdl are identifiers already; a hand-built Pdl's may hold anything. */
function mermaidId(name: string): string {
  return name.replace(/[^A-Za-z0-9_]/g, (char) => `_${char.codePointAt(0)}_`);
}
