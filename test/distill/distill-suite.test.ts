/**
 * The shipped suite (examples/distill-suite): it loads without a problem, each task has ≥ 5 tests and a reference
 * workflow that passes every one of them under runWorkflow with no model, against the real business API on a free
 * port; and together the references use every node kind and branch shape the issue asks for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BusinessApi, startBusinessApi } from '../../examples/business-api/business-api.js';
import { loadSuite, type Suite } from '../../src/distill/load-suite.js';
import { openSuiteTools, type SuiteTools } from '../../src/distill/open-suite-tools.js';
import { runWorkflow } from '../../src/distill/run-workflow.js';
import { sameJson } from '../../src/text/same-json.js';
import type { ExecutableWorkflow } from '../../src/distill/workflow.js';

const SUITE = 'examples/distill-suite';
let api: BusinessApi;
let suite: Suite;
let tools: SuiteTools;

beforeAll(async () => {
  api = await startBusinessApi({ port: 0 });
  suite = await loadSuite(SUITE);
  tools = await openSuiteTools(suite.tasks, { env: { BUSINESS_API_URL: api.url } });
});
afterAll(async () => {
  await tools?.close();
  await api?.close();
});

describe('the shipped distillation suite', () => {
  it('has at least 25 tasks, each with a description, train inputs, at least 5 tests and a reference', () => {
    expect(suite.tasks.length).toBeGreaterThanOrEqual(25);
    expect(suite.warnings).toEqual([]);
    for (const task of suite.tasks) {
      expect(task.tests.length, task.name).toBeGreaterThanOrEqual(5);
      expect(task.train.length, task.name).toBeGreaterThanOrEqual(1);
      expect(task.reference, task.name).toBeDefined();
    }
    const business = suite.tasks.filter((task) => task.tools.some((file) => file.includes('business-api')));
    expect(business.length).toBeGreaterThanOrEqual(8);
  });

  it('every reference passes all its tests (and its train inputs run) with zero model calls', async () => {
    const failures: string[] = [];
    let cases = 0;
    for (const task of suite.tasks) {
      const reference = task.reference as ExecutableWorkflow;
      for (const [index, test] of task.tests.entries()) {
        cases += 1;
        try {
          const run = await runWorkflow(reference, { tools: tools.toolsFor(task), input: test.input });
          expect(run.llmCalls).toBe(0);
          if (!sameJson(run.output, test.expected))
            failures.push(
              `${task.name} tests[${index}]: got ${JSON.stringify(run.output)}, expected ${JSON.stringify(test.expected)}`,
            );
        } catch (error) {
          failures.push(`${task.name} tests[${index}]: ${(error as Error).message}`);
        }
      }
      for (const [index, input] of task.train.entries()) {
        await runWorkflow(reference, { tools: tools.toolsFor(task), input }).catch((error: Error) =>
          failures.push(`${task.name} train[${index}]: ${error.message}`),
        );
      }
    }
    expect(failures).toEqual([]);
    expect(cases).toBeGreaterThanOrEqual(125);
    // Read-only against the API: nothing the references did was refused as a violation.
    expect(api.stats().violations).toBe(0);
  });

  it('covers every node kind and branch shape: tool, set, forEach, true/false and multi-way conditions with a default, loops as back-edges, early exits', () => {
    const references = suite.tasks.map((task) => task.reference as ExecutableWorkflow);
    const kinds = new Set(references.flatMap((workflow) => workflow.nodes.map((node) => node.kind)));
    expect([...kinds].sort()).toEqual(['condition', 'end', 'forEach', 'set', 'start', 'tool']);
    const count = (test: (workflow: ExecutableWorkflow) => boolean) => references.filter(test).length;
    const conditionEdges = (workflow: ExecutableWorkflow) => {
      const conditions = new Set(workflow.nodes.filter((node) => node.kind === 'condition').map((node) => node.id));
      return workflow.edges.filter((edge) => conditions.has(edge.from));
    };
    expect(
      count(
        (w) =>
          conditionEdges(w).some((edge) => edge.when === true) && conditionEdges(w).some((edge) => edge.when === false),
      ),
    ).toBeGreaterThanOrEqual(5);
    expect(count((w) => conditionEdges(w).some((edge) => edge.default === true))).toBeGreaterThanOrEqual(3);
    expect(
      count((w) => conditionEdges(w).some((edge) => typeof edge.when === 'string' || typeof edge.when === 'number')),
    ).toBeGreaterThanOrEqual(3);
    expect(count((w) => w.nodes.filter((node) => node.kind === 'end').length >= 2)).toBeGreaterThanOrEqual(5);
    expect(count(hasBackEdgeThroughCondition)).toBeGreaterThanOrEqual(4);
    expect(count((w) => w.nodes.some((node) => node.kind === 'forEach'))).toBeGreaterThanOrEqual(4);
    // The themes, by category.
    const categories = new Set(suite.tasks.map((task) => task.category));
    for (const category of [
      'lookups',
      'arithmetic',
      'strings',
      'branching',
      'loops',
      'early-exit',
      'api-lookups',
      'api-branching',
      'api-loops',
    ])
      expect(categories, category).toContain(category);
  });
});

/** A cycle outside forEach bodies that passes through a condition: a loop written as a back-edge. */
function hasBackEdgeThroughCondition(workflow: ExecutableWorkflow): boolean {
  const forEachIds = new Set(workflow.nodes.filter((node) => node.kind === 'forEach').map((node) => node.id));
  const kindOf = new Map(workflow.nodes.map((node) => [node.id, node.kind]));
  const next = new Map<string, string[]>();
  for (const edge of workflow.edges) {
    if (forEachIds.has(edge.from) || forEachIds.has(edge.to)) continue;
    next.set(edge.from, [...(next.get(edge.from) ?? []), edge.to]);
  }
  for (const node of workflow.nodes) {
    if (kindOf.get(node.id) !== 'condition') continue;
    const seen = new Set<string>();
    const stack = [...(next.get(node.id) ?? [])];
    while (stack.length > 0) {
      const id = stack.pop() as string;
      if (id === node.id) return true;
      if (seen.has(id)) continue;
      seen.add(id);
      stack.push(...(next.get(id) ?? []));
    }
  }
  return false;
}
