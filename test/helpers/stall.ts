// Stalls of the in-process test server, measured so that a busy machine cannot fake one: the
// event loop (which the server and the test share) is sampled every 5 ms, and the main thread's
// CPU time between two samples is how much work one uninterrupted stretch held the loop for. A
// stall is work that burns seconds of CPU before letting anything else run; a machine shared with
// other processes stretches the wall time of every stretch, never its CPU time.
export interface LoopWatch {
  /** Stops sampling; the largest CPU time, in ms, the loop was held between two samples. */
  stop(): { longestBlockCpuMs: number; samples: number };
}

const cpuMs = () => {
  const usage = process.threadCpuUsage();
  return (usage.user + usage.system) / 1000;
};

export function watchEventLoop(): LoopWatch {
  let last = cpuMs();
  let longest = 0;
  let samples = 0;
  const sample = () => {
    const now = cpuMs();
    longest = Math.max(longest, now - last);
    last = now;
    samples++;
  };
  const timer = setInterval(sample, 5);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { longestBlockCpuMs: longest, samples };
    },
  };
}

/** Runs `work` while the loop is watched: its result, and the longest CPU stretch that held the loop. */
export async function whileWatched<T>(work: () => Promise<T>): Promise<{ result: T; longestBlockCpuMs: number }> {
  const watch = watchEventLoop();
  try {
    const result = await work();
    return { result, longestBlockCpuMs: watch.stop().longestBlockCpuMs };
  } finally {
    watch.stop();
  }
}
