// A wait's progress as a person sees it: what the wait waits for now, as status lines that replace each other,
// and what it ended with, once. The wait loop hands over every look's observation (`onObservation`); the
// host decides where the lines go (the native plugin: the engine's ephemeral log, then its info log; the
// dynamic provider has no channel and asks for none).
import type { Observation } from "../sdk/client/wait";

/** Where one wait's lines go. */
export interface ProgressLines {
  /** What the wait waits for now: shown while the step runs, replaced by the next one. */
  status(text: string): void;
  /** What the wait ended with, kept with the resource. */
  final(text: string): void;
}

/**
 * At most one status line per this interval. The wait looks far more often (every 50 ms while polling, on
 * every event of the watch), and a line carrying a running time ("building main@1a2b3c4 (20s)") changes once a
 * second anyway.
 */
export const PROGRESS_INTERVAL_MS = 1_000;

/**
 * The progress of one wait. A pending look's message becomes a status line when it differs from the line shown,
 * at once if none was shown within the interval, else the newest is held back until the interval is over (an
 * intermediate one is skipped). A ready look's message goes to `final` once, and only if a status line was shown:
 * a wait whose first look was ready shows nothing. A failure (or `end()`, on a timeout) shows nothing more: the
 * step's error says what happened.
 */
export class WaitProgress {
  private shown: string | undefined;
  private shownAt = Number.NEGATIVE_INFINITY;
  private held: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ended = false;

  constructor(
    private readonly lines: ProgressLines,
    private readonly intervalMs = PROGRESS_INTERVAL_MS,
  ) {}

  observe(observation: Observation): void {
    if (this.ended) return;
    if (observation.state === "pending") {
      this.pending(observation.message);
      return;
    }
    const anyShown = this.shown !== undefined;
    this.end();
    if (observation.state === "ready" && anyShown && observation.message)
      this.lines.final(observation.message);
  }

  /** No more lines, and no held one later. */
  end(): void {
    this.ended = true;
    this.held = undefined;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private pending(message: string): void {
    if (message === this.shown) {
      // Back to what is shown: a held change is no news any more.
      this.held = undefined;
      return;
    }
    const wait = this.shownAt + this.intervalMs - Date.now();
    if (wait <= 0) {
      this.show(message);
      return;
    }
    this.held = message;
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.held !== undefined) this.show(this.held);
    }, wait);
    this.timer.unref();
  }

  private show(message: string): void {
    this.held = undefined;
    this.shown = message;
    this.shownAt = Date.now();
    this.lines.status(message);
  }
}
