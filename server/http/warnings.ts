import type { FastifyReply } from "fastify";

/** RFC 7234 warn-code 299 ("miscellaneous persistent warning"), as the Kubernetes API server sends. */
function formatWarning(text: string): string {
  const printable = text.replace(/[^\x20-\x7e]/g, "?");
  return `299 - "${printable.replace(/["\\]/g, (char) => `\\${char}`)}"`;
}

export function addWarnings(reply: FastifyReply, warnings: readonly string[]): void {
  if (warnings.length > 0) reply.header("Warning", warnings.map(formatWarning));
}
