// In-process module tools of the distill bench's workflow (bench/distill/order.workflow.json): a small order
// service with deterministic answers, so every case has a known expected output.
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';

const TIERS = ['gold', 'silver', 'bronze'] as const;

/** The order with this id: 0-3 items, a customer tier. Pure, so the bench can compute expectations. */
export function orderOf(id: number): { id: number; items: { sku: string; qty: number }[]; customer: { tier: string } } {
  const count = id % 4;
  return {
    id,
    items: Array.from({ length: count }, (_, i) => ({ sku: `sku-${(id + i) % 7}`, qty: 1 + ((id + i) % 3) })),
    customer: { tier: TIERS[id % 3] as string },
  };
}

export function priceOf(sku: string): number {
  return 10 + Number(sku.slice(4)) * 15;
}

export const getOrder = defineTool({
  description: 'the order with this id',
  inputSchema: z.object({ id: z.number().int() }),
  idempotent: true,
  execute: async ({ id }) => orderOf(id),
});

export const price = defineTool({
  description: 'the unit price of a sku',
  inputSchema: z.object({ sku: z.string() }),
  idempotent: true,
  execute: async ({ sku }) => priceOf(sku),
});

export const discount = defineTool({
  description: 'amount less pct percent, rounded to cents',
  inputSchema: z.object({ amount: z.number(), pct: z.number() }),
  idempotent: true,
  execute: async ({ amount, pct }) => Math.round(amount * (100 - pct)) / 100,
});

export const add = defineTool({
  description: 'a + b',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  idempotent: true,
  execute: async ({ a, b }) => a + b,
});

export const format = defineTool({
  description: 'a label for a total and a bonus',
  inputSchema: z.object({ total: z.number(), bonus: z.number() }),
  idempotent: true,
  execute: async ({ total, bonus }) => `${total.toFixed(2)}+${bonus}`,
});
