import { AsyncLocalStorage } from "node:async_hooks";
import type { ApiWarning } from "../sdk/client";

/** Shows one warning text to the person running the step (the native plugin: an engine warning on the resource). */
export type WarningSink = (text: string) => Promise<void> | void;

interface Step {
  report(text: string): void;
}

/**
 * The step (create, update, read, delete) whose API calls are running: the client is shared by every resource
 * of the provider, and steps run concurrently, so each step's warnings are told apart by async context rather
 * than threaded through every call.
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
 * Runs one step with `sink` receiving each distinct warning text its API calls are answered with, once (a
 * write retried on a conflict, and the read that follows it, repeat the server's advice). The step's answer
 * waits until the sink has taken every warning, so they are shown before the step ends; a warning that comes
 * after (from a watch the step started) is dropped.
 */
export async function withStepWarnings<T>(sink: WarningSink | undefined, step: () => Promise<T>): Promise<T> {
  if (sink === undefined) return step();
  const seen = new Set<string>();
  const delivered: Promise<void>[] = [];
  let open = true;
  const report = (text: string) => {
    if (!open || seen.has(text)) return;
    seen.add(text);
    // A warning that cannot be shown must not fail the step.
    delivered.push(
      Promise.resolve()
        .then(() => sink(text))
        .catch(() => undefined),
    );
  };
  try {
    return await currentStep.run({ report }, step);
  } finally {
    open = false;
    await Promise.all(delivered);
  }
}
