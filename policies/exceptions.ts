import { daysBetween } from "./dates";
import type { PackConfig, PolicyException } from "./pack-config";

/**
 * What Pulumi's policy exceptions (a version-2 config's `exceptions`, policies/pack-config.ts) do to a
 * violation, decided once for the pack, the pull-request report and the audit. The CLI matches an exception
 * when it names the violation's policy and, exactly, its resource's URN, and then shows the violation as
 * exempted whatever its level. It knows nothing of the pack's `owner` and `expires`: an expired exception
 * still exempts there, so the pack's policy `policy-exceptions` fails the preview for it (exceptionProblems),
 * and the report and the audit count its violations as violations (judgeException).
 */

/** The policy that judges the exceptions themselves: an exception cannot name it. */
export const EXCEPTIONS_POLICY = "policy-exceptions";

const byId = (a: PolicyException, b: PolicyException) => a.id.localeCompare(b.id, "en", { numeric: true });

export function isExpired(exception: PolicyException, on: string): boolean {
  return exception.expires !== undefined && exception.expires < on;
}

/** The exceptions that match a violation of `policy` on `urn` as the CLI matches them, lowest ID first. */
export function matchingExceptions(
  exceptions: readonly PolicyException[],
  policy: string,
  urn: string | undefined,
): PolicyException[] {
  if (urn === undefined) return [];
  return exceptions
    .filter(({ match }) =>
      match.some((entry) => entry.policies.includes(policy) && entry.targets.includes(urn)),
    )
    .sort(byId);
}

export type ExceptionJudgement =
  | { exempted: true; exception: PolicyException }
  | { exempted: false; expired?: PolicyException };

/** Exempted by the lowest-ID exception that matches and has not expired; otherwise a violation. */
export function judgeException(
  exceptions: readonly PolicyException[],
  policy: string,
  urn: string | undefined,
  on: string,
): ExceptionJudgement {
  const matching = matchingExceptions(exceptions, policy, urn);
  const live = matching.find((exception) => !isExpired(exception, on));
  if (live) return { exempted: true, exception: live };
  const expired = matching.at(-1);
  return expired ? { exempted: false, expired } : { exempted: false };
}

/** How an exception reads in a message: its ID, and its owner when it has one. */
export function describeException(exception: PolicyException): string {
  return `policy exception "${exception.id}"${exception.owner ? ` (owner ${exception.owner})` : ""}`;
}

export interface ExceptionProblem {
  exception: string;
  /** The resources the exception targets, where the problem is shown. */
  targets: string[];
  message: string;
}

function maxDaysOf(config: PackConfig, policy: string): number | undefined {
  const settings = config.policies[policy];
  const max =
    typeof settings === "object" && settings !== null
      ? (settings as Record<string, unknown>).exemptionMaxDays
      : undefined;
  return typeof max === "number" ? max : undefined;
}

/**
 * What the pack refuses in a file's exceptions on day `on`: an expired exception (the CLI would still
 * exempt), an expiry beyond a named policy's `exemptionMaxDays` or missing where one is set, and an exception
 * naming `policy-exceptions` itself.
 */
export function exceptionProblems(config: PackConfig, on: string): ExceptionProblem[] {
  return [...config.exceptions].sort(byId).flatMap((exception) => {
    const policies = [...new Set(exception.match.flatMap((entry) => entry.policies))];
    const targets = [...new Set(exception.match.flatMap((entry) => entry.targets))];
    const problem = (message: string) => ({ exception: exception.id, targets, message });
    const named = describeException(exception);
    if (policies.includes(EXCEPTIONS_POLICY))
      return [
        problem(
          `${named} names ${EXCEPTIONS_POLICY}, which judges the exceptions themselves and cannot be exempted: remove it from match`,
        ),
      ];
    if (exception.expires !== undefined && isExpired(exception, on))
      return [
        problem(
          `${named} expired on ${exception.expires}: it no longer exempts ${policies.join(", ")} (${JSON.stringify(exception.reason)}); renew it with a later expires, or fix the resources and remove it`,
        ),
      ];
    return policies.flatMap((policy) => {
      const max = maxDaysOf(config, policy);
      if (max === undefined) return [];
      if (exception.expires === undefined)
        return [
          problem(
            `${named} has no expires, and exemptionMaxDays of ${policy} is ${max}: add an expires (YYYY-MM-DD) at most ${max} days ahead`,
          ),
        ];
      if (daysBetween(on, exception.expires) > max)
        return [
          problem(
            `${named} expires on ${exception.expires}, more than exemptionMaxDays (${max}) days of ${policy} ahead of ${on}: choose an earlier date`,
          ),
        ];
      return [];
    });
  });
}
