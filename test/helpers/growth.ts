// Whether per-request work is linear in its input, without absolute times: the cost of a pure
// function on an input 4 times as long, divided by its cost on the shorter one. Linear work gives
// about 4, quadratic about 16. Cost is this process's CPU time (other processes on the machine do
// not count), over enough repetitions to take a few tens of milliseconds, best of several runs.

const RUNS = 3;
const MIN_CPU_MICROS = 10_000;

function cpuMicros(work: () => void): number {
  const start = process.cpuUsage();
  work();
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

function bestCost(work: () => void): number {
  let best = Infinity;
  for (let i = 0; i < RUNS; i++) best = Math.min(best, cpuMicros(work));
  return best;
}

/**
 * The cost ratio of `work(4n)` to `work(n)`: the lowest of a few estimates, or the first one under
 * `bound` (the caller's own bound, so that a noisy estimate above it is measured again). When every
 * estimate is over the bound, the same is measured one scale up (`work(16n)` to `work(4n)`) and the
 * lower ratio returned: a step in the cost of memory can sit between n and 4n (an output string
 * past V8's regular object size goes to large-object space, fresh pages the kernel must fault in:
 * deck markdown export of a run of U+2028 went from 60 to 140 ns per character between 4000 and
 * 6000 characters, a ratio of 10 to 35, then stayed there), while quadratic work grows about 16
 * times at every scale.
 */
export function growth(work: (n: number) => void, n: number, bound = LINEAR_BOUND): number {
  const first = lowestRatio(work, n, bound);
  return first < bound ? first : Math.min(first, lowestRatio(work, 4 * n, bound));
}

function lowestRatio(work: (n: number) => void, n: number, bound: number): number {
  const repeated = (size: number, times: number) => () => { for (let i = 0; i < times; i++) work(size); };
  let times = 1;
  while (times < 4096 && cpuMicros(repeated(n, times)) < MIN_CPU_MICROS) times *= 2;
  // A busy machine (GC, another process on the core) only ever makes one measurement look worse,
  // so the lowest of a few estimates is kept: quadratic work stays near 16 in every one of them.
  let lowest = Infinity;
  for (let attempt = 0; attempt < ESTIMATES && lowest >= bound; attempt++) {
    const small = bestCost(repeated(n, times));
    const large = bestCost(repeated(4 * n, times));
    lowest = Math.min(lowest, large / Math.max(small, 1));
  }
  return lowest;
}

// Six, because CI once saw 9.2 for linear work on a loaded machine in all of three.
const ESTIMATES = 6;

/** Well under the 16 of quadratic work, with room above the 4 of linear work for noise. */
export const LINEAR_BOUND = 8;

/**
 * Runs of one character (or a short unit) that make naive patterns backtrack: markdown, math
 * and table markers, brackets, whitespace and line ends.
 */
export const HOSTILE_UNITS = [
  '|', ' ', '*', '$', '#', '-', '`', '~', '_', '[', ']', '(', ')', '!', '>', '<', '\\', '=', '+', '1', '.', ':',
  '\n', '\r', '\r\n', '\t', '\u00a0', '\u2028', ' |', '|\n', '| ', '- ', '-\n', '1.', '1. ', '[a](', '](', '**a', '__a', '$a',
  '```', '~~~\n', '# ', '#\n', '|---', '\n|', ' \n', 'a|', '[[', '((',
];

/** `unit` repeated to about `length` characters, alone and between other text. */
export function runsOf(unit: string, length: number): string[] {
  const run = unit.repeat(Math.max(1, Math.floor(length / unit.length)));
  return [run, `x${run}y`, `${run}\n${run}`];
}
