// What a step shows on its resource, told apart by step: each distinct warning text once, and its waits'
// progress lines in order, all before the step ends.
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { reportWarning, stepProgress, type WarningSink, withStepLog } from "../../../provider/step-log";

const warning = (text: string) => ({ code: 299, agent: "-", text });
const withStepWarnings = <T>(warn: WarningSink, step: () => Promise<T>) => withStepLog({ warn }, step);

describe("withStepLog: the API's warnings", () => {
  it("gives the sink each distinct text of the step once, in order, before the step's answer", async () => {
    const shown: string[] = [];
    const answer = await withStepWarnings(
      async (text) => {
        await sleep(5);
        shown.push(text);
      },
      async () => {
        reportWarning(warning("b"));
        await sleep(1);
        reportWarning(warning("a"));
        reportWarning(warning("b"));
        return "done";
      },
    );
    expect(answer).toBe("done");
    expect(shown).toEqual(["b", "a"]);
  });

  it("keeps concurrent steps apart, and reports a failed step's warnings before its error", async () => {
    const shown: string[] = [];
    const step = (name: string, fail: boolean) =>
      withStepWarnings(
        (text) => void shown.push(`${name}: ${text}`),
        async () => {
          await sleep(name === "one" ? 5 : 1);
          reportWarning(warning(`from ${name}`));
          if (fail) throw new Error(`${name} failed`);
        },
      );
    const outcomes = await Promise.allSettled([step("one", false), step("two", true)]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected"]);
    expect(shown.sort()).toEqual(["one: from one", "two: from two"]);
  });

  it("drops warnings outside a step and after it ended, and survives a sink that fails", async () => {
    reportWarning(warning("nobody's"));
    const shown: string[] = [];
    let later: Promise<void> | undefined;
    await withStepWarnings(
      (text) => {
        shown.push(text);
        if (text === "boom") throw new Error("sink down");
      },
      async () => {
        reportWarning(warning("boom"));
        // Work the step started that outlives it (a watch): it runs in the step's async context.
        later = sleep(20).then(() => reportWarning(warning("late")));
      },
    );
    await later;
    expect(shown).toEqual(["boom"]);
  });
});

describe("withStepLog: a wait's progress", () => {
  it("gives the step's waits its status and info lines, in order, before the step's answer", async () => {
    const lines: string[] = [];
    expect(stepProgress()).toBeUndefined();
    const answer = await withStepLog(
      {
        status: async (text) => {
          await sleep(5);
          lines.push(`status: ${text}`);
        },
        info: (text) => void lines.push(`info: ${text}`),
      },
      async () => {
        const progress = stepProgress();
        progress?.status("building main@1a2b3c4 (1s)");
        progress?.status("building main@1a2b3c4 (2s)");
        progress?.final("minted api-3f9c1a2b3c");
        return "done";
      },
    );
    expect(answer).toBe("done");
    expect(lines).toEqual([
      "status: building main@1a2b3c4 (1s)",
      "status: building main@1a2b3c4 (2s)",
      "info: minted api-3f9c1a2b3c",
    ]);
  });

  it("offers no progress to a step whose log shows none", async () => {
    const seen = await withStepLog({ warn: () => undefined }, async () => stepProgress());
    expect(seen).toBeUndefined();
  });
});
