// Whether per-request work is linear in its input, without absolute times: the cost of a pure
// function on an input 4 times as long, divided by its cost on the shorter one. Linear work gives
// about 4, quadratic about 16. Cost is this process's CPU time (other processes on the machine do
// not count), over enough repetitions to take a few milliseconds, best of several runs.

const RUNS = 3;
// 5 ms: Linux accounts CPU time to the nanosecond, and the best of RUNS absorbs a GC pause.
const MIN_CPU_MICROS = 5_000;
// Six per scale, because CI once saw 9.2 for linear work on a loaded machine in all of three.
const ESTIMATES = 6;

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
 * The cost ratio of `work(4n)` to `work(n)`, or one scale up (`work(16n)` to `work(4n)`): the lowest
 * of up to ESTIMATES estimates at each scale, returned as soon as one is under `bound` (the caller's
 * own bound, so that a noisy estimate above it is measured again). Both scales count because a step
 * in the cost of memory can sit between n and 4n (an output string past V8's regular object size
 * goes to large-object space, fresh pages the kernel must fault in: deck markdown export of a run of
 * U+2028 went from 60 to 140 ns per character between 4000 and 6000 characters, a ratio of 10 to
 * 35, then stayed there), while quadratic work grows about 16 times at every scale. The scales take
 * turns after the first two estimates, so that such a step costs one estimate at the lower scale,
 * not all of them; work passes exactly when some estimate at either scale is under `bound`.
 */
export function growth(work: (n: number) => void, n: number, bound = LINEAR_BOUND): number {
  const scales = [estimator(work, n), estimator(work, 4 * n)];
  let lowest = Infinity;
  for (let attempt = 0; lowest >= bound; attempt++) {
    // Twice at n (noise is likelier than a step), then the scales in turns while either has some left.
    const preferred = attempt < 2 ? 0 : attempt % 2;
    const scale = [scales[preferred], scales[1 - preferred]].find((s) => s.left > 0);
    if (scale === undefined) break;
    lowest = Math.min(lowest, scale.estimate());
  }
  return lowest;
}

/** Estimates of the ratio of `work(4n)` to `work(n)`, repeated enough to take MIN_CPU_MICROS. */
function estimator(work: (n: number) => void, n: number): { left: number; estimate(): number } {
  const repeated = (size: number, times: number) => () => { for (let i = 0; i < times; i++) work(size); };
  let times = 0;
  const state = {
    left: ESTIMATES,
    // A busy machine (GC, another process on the core) only ever makes one measurement look worse,
    // so the lowest of a few estimates is kept: quadratic work stays near 16 in every one of them.
    estimate(): number {
      if (times === 0) {
        times = 1;
        while (times < 4096 && cpuMicros(repeated(n, times)) < MIN_CPU_MICROS) times *= 2;
      }
      state.left--;
      const small = bestCost(repeated(n, times));
      const large = bestCost(repeated(4 * n, times));
      return large / Math.max(small, 1);
    },
  };
  return state;
}

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
