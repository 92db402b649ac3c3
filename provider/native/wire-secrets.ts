// Secrets on the provider protocol. The plugin tells the engine it accepts secrets, so a secret value arrives
// as an object carrying Pulumi's signature key, and an output is secret when the plugin wraps it the same way.
// The core (provider/object-provider.ts) works on plain values: `reveal` unwraps what arrives and remembers
// where the secrets were, `conceal` wraps those places again, plus the spec's secret fields, on the way out.
import { isRecord } from "../../sdk/shared/records";

/** The key and value that mark a secret in the protocol's structs (Pulumi's `specialSigKey`, `secretSig`). */
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";

export type Path = readonly (string | number)[];

export function isWireSecret(value: unknown): value is { value: unknown } {
  return isRecord(value) && value[SIG_KEY] === SECRET_SIG;
}

export function wireSecret(value: unknown): Record<string, unknown> {
  return { [SIG_KEY]: SECRET_SIG, value };
}

/** The value with every secret unwrapped, and the paths where secrets were. */
export function reveal(value: unknown): { plain: unknown; secrets: Path[] } {
  const secrets: Path[] = [];
  const visit = (item: unknown, path: Path): unknown => {
    if (isWireSecret(item)) {
      secrets.push(path);
      return visit(item.value, path);
    }
    if (Array.isArray(item)) return item.map((element, index) => visit(element, [...path, index]));
    if (isRecord(item)) {
      return Object.fromEntries(
        Object.entries(item).map(([key, field]) => [key, visit(field, [...path, key])]),
      );
    }
    return item;
  };
  return { plain: visit(value, []), secrets };
}

/** A copy with the values at `paths` wrapped as secrets; paths that lead nowhere are skipped. */
export function conceal(value: unknown, paths: readonly Path[]): unknown {
  return paths.reduce(wrapAt, value);
}

function wrapAt(value: unknown, path: Path): unknown {
  // Already secret here or above: everything below is secret with it.
  if (value === undefined || isWireSecret(value)) return value;
  if (path.length === 0) return wireSecret(value);
  const [head, ...rest] = path;
  if (Array.isArray(value) && typeof head === "number" && head < value.length) {
    return value.map((item, index) => (index === head ? wrapAt(item, rest) : item));
  }
  if (isRecord(value) && typeof head === "string" && Object.hasOwn(value, head)) {
    return { ...value, [head]: wrapAt(value[head], rest) };
  }
  return value;
}
