// Preloaded (`node -r`) into a server process by patch-blocking.ts: records the process's event-loop delay
// and reports it over the IPC channel, so the server can be measured from outside as it runs.
import { monitorEventLoopDelay } from "node:perf_hooks";

export interface LoopDelay {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

const histogram = monitorEventLoopDelay({ resolution: 1 });
histogram.enable();
const ms = (nanoseconds: number) => Math.round(nanoseconds / 1e4) / 100;

/** "reset" starts a new measurement, "report" answers the delay since; both answer with the delay. */
process.on("message", (message) => {
  const delay: LoopDelay = {
    p50Ms: ms(histogram.percentile(50)),
    p99Ms: ms(histogram.percentile(99)),
    maxMs: ms(histogram.max),
  };
  if (message === "reset") histogram.reset();
  process.send?.(delay);
});
// The channel must not keep the server alive once it closes.
process.channel?.unref();
