/** RFC 3339 in whole seconds (`2024-09-01T12:00:00Z`), as Kubernetes writes timestamps. */
export function timestamp(date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}
