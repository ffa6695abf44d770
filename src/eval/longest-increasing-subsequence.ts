/** Length of the longest strictly increasing subsequence, O(n log n) (patience sorting). */
export function longestIncreasingSubsequence(values: readonly number[]): number {
  // tails[k] = the smallest possible last value of an increasing subsequence of length k + 1.
  const tails: number[] = [];
  for (const value of values) {
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((tails[middle] ?? 0) < value) low = middle + 1;
      else high = middle;
    }
    tails[low] = value;
  }
  return tails.length;
}
