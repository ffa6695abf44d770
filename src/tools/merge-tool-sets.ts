/**
 * One ToolSet of several (a tools file and a plan's own `tools:` section): a name must stay unique across them, as
 * within one file, since a model calls tools by name. `close()` closes every part.
 */
import { WeftError } from '../errors.js';
import type { Tool, ToolSet } from './tool.js';

/** The merged set; on a name two sets give, every set is closed and BAD_INPUT names both tools' sources. */
export async function mergeToolSets(sets: readonly ToolSet[]): Promise<ToolSet> {
  const byName = new Map<string, Tool>();
  const clashes: string[] = [];
  for (const set of sets) {
    for (const tool of set.tools) {
      const earlier = byName.get(tool.name);
      if (earlier) clashes.push(`tool "${tool.name}" is defined twice: ${earlier.source} and ${tool.source}`);
      else byName.set(tool.name, tool);
    }
  }
  const close = async (): Promise<void> => {
    await Promise.allSettled(sets.map((set) => set.close()));
  };
  if (clashes.length > 0) {
    await close();
    throw new WeftError('BAD_INPUT', clashes.join('; '), {
      issues: clashes.map((message) => ({ message })),
      location: { field: 'tools' },
    });
  }
  return { tools: [...byName.values()], close };
}
