import { AsyncLocalStorage } from "node:async_hooks";
import type { ApiWarning } from "../sdk/client";
import type { ProgressLines } from "./wait-progress";

/** Shows one warning text to the person running the step (the native plugin: an engine warning on the resource). */
export type WarningSink = (text: string) => Promise<void> | void;

/** What one step shows on its resource (the native plugin: the engine's log, with the resource's URN). */
export interface StepLog {
  /** A warning of the API. */
  warn?: WarningSink;
  /** What a wait of the step waits for now, replaced by the next line (the engine's ephemeral status log). */
  status?(text: string): Promise<void> | void;
  /** What a wait ended with, kept with the resource (the engine's info log). */
  info?(text: string): Promise<void> | void;
}

interface Step {
  report(text: string): void;
  progress: ProgressLines | undefined;
}

/**
 * The step (create, update, read, delete) whose API calls and waits are running: the client and the watches are
 * shared by every resource of the provider, and steps run concurrently, so each step's warnings and progress are
 * told apart by async context rather than threaded through every call.
 */
const currentStep = new AsyncLocalStorage<Step>();

/**
 * The client's warning handler: the warning goes to the step it was answered in. Outside a step (check and
 * diff, whose dry runs repeat what the step will be told; a watch outliving its step) it is dropped.
 */
export function reportWarning(warning: ApiWarning): void {
  currentStep.getStore()?.report(warning.text);
}

/**
 * Where a wait of the running step shows its progress; undefined outside a step, and for a host that shows
 * none (the dynamic provider runs no step).
 */
export function stepProgress(): ProgressLines | undefined {
  return currentStep.getStore()?.progress;
}

/**
 * Runs one step with `log` receiving each distinct warning text its API calls are answered with, once (a write
 * retried on a conflict, and the read that follows it, repeat the server's advice), and its waits' progress
 * lines. Lines are delivered one after the other, in order, and the step's answer waits until the log has taken
 * every one, so they are shown before the step ends; a line that comes after (a watch the step started) is
 * dropped.
 */
export async function withStepLog<T>(log: StepLog | undefined, step: () => Promise<T>): Promise<T> {
  if (log === undefined) return step();
  const seen = new Set<string>();
  let delivered = Promise.resolve();
  let open = true;
  const send = (line: () => Promise<void> | void) => {
    if (!open) return;
    // A line that cannot be shown must not fail the step.
    delivered = delivered.then(line).catch(() => undefined);
  };
  const report = (text: string) => {
    if (seen.has(text)) return;
    seen.add(text);
    const warn = log.warn;
    if (warn !== undefined) send(() => warn(text));
  };
  const { status, info } = log;
  const progress =
    status === undefined
      ? undefined
      : {
          status: (text: string) => send(() => status.call(log, text)),
          final: (text: string) => send(() => info?.call(log, text)),
        };
  try {
    return await currentStep.run({ report, progress }, step);
  } finally {
    open = false;
    await delivered;
  }
}
