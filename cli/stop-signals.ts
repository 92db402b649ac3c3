// How the long-running commands (the local server, the controller) stop: the first SIGINT or SIGTERM
// starts a graceful stop and exits 0 when it is done (1 if it failed); a later one exits at once.

/** A second signal within this is the same request: npm forwards the terminal's Ctrl-C too. */
const REPEATED_SIGNAL_MS = 1_000;

export function stopOnSignals(stop: () => Promise<void>, report: (message: string) => void): void {
  let stoppingSince: number | undefined;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stoppingSince !== undefined) {
      // A later one means the graceful stop takes too long.
      if (Date.now() - stoppingSince < REPEATED_SIGNAL_MS) return;
      report(`${signal} again: exiting without waiting for the graceful stop`);
      process.exit(1);
    }
    stoppingSince = Date.now();
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        report(`shutdown after ${signal} failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
}
