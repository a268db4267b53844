// Order statistics the benchmarks report. A run with no samples is a bug in the benchmark, so these
// throw rather than print NaN.

/** The sample at rank floor(n·q) of the sorted samples (q = 0.5: the median, upper one for even n). */
export function quantile(samples: readonly number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const x = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
  if (x === undefined) throw new Error("no samples to summarise");
  return x;
}

export const median = (samples: readonly number[]): number => quantile(samples, 0.5);

/** Median, smallest and largest sample. */
export function spread(samples: readonly number[]): { median: number; min: number; max: number } {
  return { median: median(samples), min: quantile(samples, 0), max: quantile(samples, 1) };
}
