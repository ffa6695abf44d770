/** Cases per second of wall time, and per second of CPU time of the whole process (its worker threads included). */
export interface CaseRate {
  readonly wall: number;
  readonly cpu: number;
}

/** Times `work`, which runs `cases` cases. */
export async function timeCases(cases: number, work: () => Promise<void>): Promise<CaseRate> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const wall = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { wall: cases / wall, cpu: cases / ((used.user + used.system) / 1e6) };
}

/** Runs cases 0 … warmup − 1 untimed, then times cases 0 … cases − 1, one after another. */
export async function timeOneByOne(
  cases: number,
  warmup: number,
  run: (index: number) => Promise<unknown>,
): Promise<CaseRate> {
  for (let i = 0; i < warmup; i++) await run(i);
  return timeCases(cases, async () => {
    for (let i = 0; i < cases; i++) await run(i);
  });
}
