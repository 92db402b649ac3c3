import { formatPath, type KindName, type PathSegment } from "../../sdk/schema";
import { isKnownName, valueAt } from "../resources";
import { organisationPolicy } from "./organisation-policy";

interface Settings {
  maxAgeDays: number;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

/** Where each kind pins its runtime's compatibility date. */
const DATE_FIELDS: Readonly<Record<KindName, readonly PathSegment[] | undefined>> = {
  Proxy: undefined,
  Service: ["spec", "template", "spec", "runtime", "compatibilityDate"],
  ServiceRevision: ["spec", "runtime", "compatibilityDate"],
};

/** Midnight UTC of a `YYYY-MM-DD` date, or undefined when it is not a real date in that form. */
function parseDate(text: string): number | undefined {
  const match = DATE.exec(text);
  if (match === null) return undefined;
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  const time = Date.UTC(year, month - 1, day);
  return new Date(time).toISOString().startsWith(text) ? time : undefined;
}

function formatDate(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

/** The policy, judging ages from the UTC day `now` returns (the day of the preview). */
export function compatibilityDateMaxAge(now: () => Date = () => new Date()) {
  return organisationPolicy<Settings>({
    name: "compatibility-date-max-age",
    description:
      "A Service's runtime.compatibilityDate is at most maxAgeDays old on the day of the preview, so services keep up with the runtime's fixes instead of pinning old behaviour for ever.",
    kinds: ["Service", "ServiceRevision"],
    configSchema: {
      properties: {
        maxAgeDays: {
          type: "integer",
          minimum: 1,
          default: 365,
          description: "The oldest compatibilityDate allowed, in days before the day of the preview (UTC).",
        },
      },
    },
    severity: "medium",
    fix: "Move runtime.compatibilityDate to a date within maxAgeDays of today, after testing the service on it.",
    remediation:
      "none: a newer compatibility date changes how the runtime runs the service's code, which its author must test",
    check: (kind, props, { maxAgeDays }) => {
      const path = DATE_FIELDS[kind];
      const date = path && valueAt(props, path);
      if (path === undefined || !isKnownName(date)) return [];
      const time = parseDate(date);
      const field = formatPath(path);
      if (time === undefined) {
        return [
          `${field}: ${JSON.stringify(date)} is not a date of the form YYYY-MM-DD, so its age cannot be judged; write one such as "2026-01-01"`,
        ];
      }
      const today = Date.parse(`${now().toISOString().slice(0, 10)}T00:00:00Z`);
      const oldest = today - maxAgeDays * DAY_MS;
      if (time >= oldest) return [];
      return [
        `${field}: ${JSON.stringify(date)} is more than ${maxAgeDays} days old (the oldest date allowed today is ${JSON.stringify(formatDate(oldest))}); move it to that date or later, after testing the service on the newer runtime behaviour`,
      ];
    },
  });
}

export const compatibilityDateMaxAgePolicy = compatibilityDateMaxAge();
