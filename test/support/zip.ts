import { expect } from "vitest";

/** Pairs a[i] with b[i]; the test fails first unless both have the same length. */
export function zip<A, B>(a: readonly A[], b: readonly B[], what = "as many items on both sides"): [A, B][] {
  expect(b.length, what).toBe(a.length);
  return a.map((x, i) => [x, b[i]!]); // `!`: same length, asserted above
}
