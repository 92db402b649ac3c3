import { randomBytes } from "node:crypto";

/**
 * A DNS-1123 name from the Pulumi logical name plus a random suffix, so that replacements and copies of a
 * stack do not collide: "My_API" becomes "my-api-3f9c1".
 */
export function autoName(logicalName: string): string {
  const base = logicalName
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, "-")
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, "")
    .slice(0, 240);
  return `${base || "object"}-${randomBytes(3).toString("hex").slice(0, 5)}`;
}
