// Calendar days as exemptions and exceptions write them: `YYYY-MM-DD`, in UTC.

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Today's date, `YYYY-MM-DD` in UTC. */
export function today(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/** Whether `value` is a real day written `YYYY-MM-DD` (not 2026-02-30). */
export function isValidDate(value: string): boolean {
  if (!DATE.test(value)) return false;
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
}

/** Whole days from `from` to `to`. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}
