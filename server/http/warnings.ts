import type { FastifyReply } from "fastify";

/** RFC 7234 warn-code 299 ("miscellaneous persistent warning"), as the Kubernetes API server sends. */
function formatWarning(text: string): string {
  const printable = text.replace(/[^\x20-\x7e]/g, "?");
  return `299 - "${printable.replace(/["\\]/g, (char) => `\\${char}`)}"`;
}

/** Adds to the Warning headers already set (body decoding warns before admission does). */
export function addWarnings(reply: FastifyReply, warnings: readonly string[]): void {
  if (warnings.length === 0) return;
  const existing = reply.getHeader("Warning");
  const earlier = existing === undefined ? [] : [existing].flat().map(String);
  reply.header("Warning", [...earlier, ...warnings.map(formatWarning)]);
}
