/**
 * Go's `sort.Slice` (sort/slice.go, sort/zsortfunc.go): pattern-defeating quicksort, which is not stable. Elements
 * that compare equal end up in the order Go's algorithm leaves them, which matters where the elements differ
 * otherwise (cel-go's `sortBy` sorts elements by keys with it): slices of at most 12 elements are insertion-sorted
 * (stable); longer ones are partitioned around pivots chosen as Go chooses them, with Go's deterministic xorshift to
 * break patterns and heapsort when too many pivots were bad.
 */

/** The indices sorted, swapped and compared through callbacks (Go's `lessSwap`). */
interface LessSwap {
  less(i: number, j: number): boolean;
  swap(i: number, j: number): void;
}

type Hint = "unknown" | "increasing" | "decreasing";

/** `bits.Len(uint(n))`: the number of bits needed to represent n. */
function bitLength(n: number): number {
  return n === 0 ? 0 : n.toString(2).length;
}

function insertionSort(d: LessSwap, a: number, b: number): void {
  for (let i = a + 1; i < b; i++) {
    for (let j = i; j > a && d.less(j, j - 1); j--) d.swap(j, j - 1);
  }
}

function siftDown(d: LessSwap, lo: number, hi: number, first: number): void {
  let root = lo;
  for (;;) {
    let child = 2 * root + 1;
    if (child >= hi) return;
    if (child + 1 < hi && d.less(first + child, first + child + 1)) child++;
    if (!d.less(first + root, first + child)) return;
    d.swap(first + root, first + child);
    root = child;
  }
}

function heapSort(d: LessSwap, a: number, b: number): void {
  const first = a;
  const hi = b - a;
  for (let i = Math.trunc((hi - 1) / 2); i >= 0; i--) siftDown(d, i, hi, first);
  for (let i = hi - 1; i >= 0; i--) {
    d.swap(first, first + i);
    siftDown(d, 0, i, first);
  }
}

/** One quicksort partition around data[pivot]; the pivot's new index and whether nothing moved. */
function partition(d: LessSwap, a: number, b: number, pivot: number): { mid: number; already: boolean } {
  d.swap(a, pivot);
  let i = a + 1;
  let j = b - 1;
  while (i <= j && d.less(i, a)) i++;
  while (i <= j && !d.less(j, a)) j--;
  if (i > j) {
    d.swap(j, a);
    return { mid: j, already: true };
  }
  d.swap(i, j);
  i++;
  j--;
  for (;;) {
    while (i <= j && d.less(i, a)) i++;
    while (i <= j && !d.less(j, a)) j--;
    if (i > j) break;
    d.swap(i, j);
    i++;
    j--;
  }
  d.swap(j, a);
  return { mid: j, already: false };
}

/** Partitions data[a:b] into the elements equal to data[pivot], then the greater ones. */
function partitionEqual(d: LessSwap, a: number, b: number, pivot: number): number {
  d.swap(a, pivot);
  let i = a + 1;
  let j = b - 1;
  for (;;) {
    while (i <= j && !d.less(a, i)) i++;
    while (i <= j && d.less(a, j)) j--;
    if (i > j) break;
    d.swap(i, j);
    i++;
    j--;
  }
  return i;
}

/** Sorts data[a:b] if few adjacent pairs are out of order; whether it is sorted at the end. */
function partialInsertionSort(d: LessSwap, a: number, b: number): boolean {
  const maxSteps = 5;
  const shortestShifting = 50;
  let i = a + 1;
  for (let step = 0; step < maxSteps; step++) {
    while (i < b && !d.less(i, i - 1)) i++;
    if (i === b) return true;
    if (b - a < shortestShifting) return false;
    d.swap(i, i - 1);
    if (i - a >= 2) {
      for (let j = i - 1; j >= 1; j--) {
        if (!d.less(j, j - 1)) break;
        d.swap(j, j - 1);
      }
    }
    if (b - i >= 2) {
      for (let j = i + 1; j < b; j++) {
        if (!d.less(j, j - 1)) break;
        d.swap(j, j - 1);
      }
    }
  }
  return false;
}

/** Scatters three elements around with Go's xorshift, seeded with the length. */
function breakPatterns(d: LessSwap, a: number, b: number): void {
  const length = b - a;
  if (length < 8) return;
  let random = BigInt(length);
  const modulus = BigInt(2 ** bitLength(length));
  const mask64 = (1n << 64n) - 1n;
  const start = a + Math.trunc(length / 4) * 2 - 1;
  for (let idx = start; idx <= start + 2; idx++) {
    random ^= (random << 13n) & mask64;
    random ^= random >> 7n;
    random ^= (random << 17n) & mask64;
    let other = Number(random & (modulus - 1n));
    if (other >= length) other -= length;
    d.swap(idx, a + other);
  }
}

/** The median of data[a], data[b], data[c], counting the swaps an ordering would take. */
function median(d: LessSwap, a: number, b: number, c: number, swaps: { n: number }): number {
  const order = (x: number, y: number): [number, number] => {
    if (d.less(y, x)) {
      swaps.n++;
      return [y, x];
    }
    return [x, y];
  };
  [a, b] = order(a, b);
  [b, c] = order(b, c);
  [a, b] = order(a, b);
  return b;
}

/** Go's pivot choice: static below 8 elements, median of three below 50, Tukey's ninther above. */
function choosePivot(d: LessSwap, a: number, b: number): { pivot: number; hint: Hint } {
  const shortestNinther = 50;
  const maxSwaps = 4 * 3;
  const l = b - a;
  const swaps = { n: 0 };
  let i = a + Math.trunc(l / 4);
  let j = a + Math.trunc(l / 4) * 2;
  let k = a + Math.trunc(l / 4) * 3;
  if (l >= 8) {
    if (l >= shortestNinther) {
      i = median(d, i - 1, i, i + 1, swaps);
      j = median(d, j - 1, j, j + 1, swaps);
      k = median(d, k - 1, k, k + 1, swaps);
    }
    j = median(d, i, j, k, swaps);
  }
  if (swaps.n === 0) return { pivot: j, hint: "increasing" };
  if (swaps.n === maxSwaps) return { pivot: j, hint: "decreasing" };
  return { pivot: j, hint: "unknown" };
}

function reverseRange(d: LessSwap, a: number, b: number): void {
  for (let i = a, j = b - 1; i < j; i++, j--) d.swap(i, j);
}

function pdqsort(d: LessSwap, a: number, b: number, limit: number): void {
  const maxInsertion = 12;
  let wasBalanced = true;
  let wasPartitioned = true;
  for (;;) {
    const length = b - a;
    if (length <= maxInsertion) {
      insertionSort(d, a, b);
      return;
    }
    if (limit === 0) {
      heapSort(d, a, b);
      return;
    }
    if (!wasBalanced) {
      breakPatterns(d, a, b);
      limit--;
    }
    let { pivot, hint } = choosePivot(d, a, b);
    if (hint === "decreasing") {
      reverseRange(d, a, b);
      pivot = b - 1 - (pivot - a);
      hint = "increasing";
    }
    if (wasBalanced && wasPartitioned && hint === "increasing" && partialInsertionSort(d, a, b)) return;
    if (a > 0 && !d.less(a - 1, pivot)) {
      a = partitionEqual(d, a, b, pivot);
      continue;
    }
    const { mid, already } = partition(d, a, b, pivot);
    wasPartitioned = already;
    const leftLen = mid - a;
    const rightLen = b - mid;
    const balanceThreshold = Math.trunc(length / 8);
    if (leftLen < rightLen) {
      wasBalanced = leftLen >= balanceThreshold;
      pdqsort(d, a, mid, limit);
      a = mid + 1;
    } else {
      wasBalanced = rightLen >= balanceThreshold;
      pdqsort(d, mid + 1, b, limit);
      b = mid;
    }
  }
}

/** `sort.Slice` on an array with a `less` of two elements: the array is sorted in place, as Go sorts it. */
export function sortSlice<T>(items: T[], less: (x: T, y: T) => boolean): void {
  const d: LessSwap = {
    less: (i, j) => less(items[i]!, items[j]!),
    swap: (i, j) => {
      const t = items[i]!;
      items[i] = items[j]!;
      items[j] = t;
    },
  };
  pdqsort(d, 0, items.length, bitLength(items.length));
}
