// Registry credentials that a `credentialsRef` (group, namespace, name) names, read from the YAML or JSON
// file the server was given (`--credentials <file>`). The file is checked on every lookup (a stat) and
// watched, so a user who adds a missing entry needs no restart. No value from the file ever reaches a
// message or a log line: messages name references, entry positions and field names only.
import { readFileSync, type Stats, statSync, unwatchFile, watchFile } from "node:fs";
import { parse as parseYaml, YAMLParseError } from "yaml";
import { z } from "zod";
import {
  type BundleRef,
  type OCICredentials,
  type OCICredentialsRef,
  OCICredentialsRefSchema,
  OCICredentialsSchema,
} from "../sdk/schema";
import { CONDITION_REASONS } from "../sdk/schema/status";
import type { Logger } from "./logger";

/** The server flag that names the file, as messages tell users to use it. */
export const CREDENTIALS_FLAG = "--credentials";

/** How often the file's stat is polled for changes (`fs.watchFile` sees editors that replace the file). */
const WATCH_INTERVAL_MS = 500;

/** One entry: the reference's fields next to the OCICredentials fields (strict: a typo is an error). */
const EntrySchema = z.strictObject({ ...OCICredentialsRefSchema.shape, ...OCICredentialsSchema.shape });
const FileSchema = z.strictObject({ credentials: z.array(EntrySchema) });

export type CredentialsLookup =
  | { ok: true; credentials: OCICredentials | undefined }
  | { ok: false; reason: typeof CONDITION_REASONS.Accepted.CredentialsNotFound; message: string };

/** `inline: false`: the field has no inline credentials to suggest instead (a git source). */
export interface LookupOptions {
  inline?: boolean;
}

/** What the OCI and git code need: the credentials a reference carries inline or names. */
export interface CredentialsSource {
  /** `fieldPath` is where the reference sits (`spec.source.oci`), for messages. */
  lookup(
    ref: Pick<BundleRef, "credentials" | "credentialsRef">,
    fieldPath: string,
    options?: LookupOptions,
  ): CredentialsLookup;
}

const keyOf = ({ group, namespace, name }: OCICredentialsRef) => `${group}/${namespace}/${name}`;

export const describeRef = ({ group, namespace, name }: OCICredentialsRef) =>
  `group "${group}", namespace "${namespace}", name "${name}"`;

type Loaded = { ok: true; entries: Map<string, OCICredentials> } | { ok: false; problem: string };

/** The file's text as entries, or what is wrong with it, in words that quote nothing from the file. */
export function parseCredentialsFile(text: string): Loaded {
  let document: unknown;
  try {
    // JSON is YAML, so one parser reads both.
    document = parseYaml(text);
  } catch (error) {
    // The parser's own message quotes the offending line, which may hold a secret: give its position only.
    const at =
      error instanceof YAMLParseError && error.linePos
        ? ` at line ${error.linePos[0].line}, column ${error.linePos[0].col}`
        : "";
    return { ok: false, problem: `it is not valid YAML or JSON${at}` };
  }
  const parsed = FileSchema.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue?.path.length ? issue.path.join(".").replace(/\.(\d+)/g, "[$1]") : "the top level";
    const expected =
      'expected {"credentials": [{group, namespace, name, and username, password, passwordData, accessToken or refreshToken}]}';
    return { ok: false, problem: `${path}: ${issue?.message ?? "invalid"} (${expected})` };
  }
  const entries = new Map<string, OCICredentials>();
  for (const [index, entry] of parsed.data.credentials.entries()) {
    const { group, namespace, name, ...credentials } = entry;
    const key = keyOf({ group, namespace, name });
    if (entries.has(key)) {
      return {
        ok: false,
        problem: `credentials[${index}] repeats ${describeRef({ group, namespace, name })}; keep one entry per reference`,
      };
    }
    entries.set(key, credentials);
  }
  return { ok: true, entries };
}

/** The credentials of a server without `--credentials`: inline credentials only. */
export const NO_CREDENTIALS_FILE: CredentialsSource = {
  lookup: (ref, fieldPath, options) => lookupIn(undefined, ref, fieldPath, options),
};

function lookupIn(
  file: CredentialsFile | undefined,
  ref: Pick<BundleRef, "credentials" | "credentialsRef">,
  fieldPath: string,
  { inline = true }: LookupOptions = {},
): CredentialsLookup {
  if (!ref.credentialsRef) return { ok: true, credentials: ref.credentials };
  const named = `${fieldPath}.credentialsRef names credentials ${describeRef(ref.credentialsRef)}`;
  const fail = (message: string): CredentialsLookup => ({
    ok: false,
    reason: CONDITION_REASONS.Accepted.CredentialsNotFound,
    message,
  });
  if (!file) {
    return fail(
      `${named}, but the server was started without ${CREDENTIALS_FLAG} <file>; start it with ${CREDENTIALS_FLAG} naming a file that lists them${inline ? `, or put the registry credentials in ${fieldPath}.credentials` : ""}`,
    );
  }
  const loaded = file.current();
  if (!loaded.ok) {
    return fail(
      `${named}, but the credentials file ${file.path} (${CREDENTIALS_FLAG}) cannot be used: ${loaded.problem}`,
    );
  }
  const credentials = loaded.entries.get(keyOf(ref.credentialsRef));
  if (credentials) return { ok: true, credentials };
  return fail(
    `${named}, which the credentials file ${file.path} (${CREDENTIALS_FLAG}) does not list; add an entry with this group, namespace and name and the ${inline ? "registry credentials (username and passwordData, accessToken or refreshToken)" : "credentials (username and passwordData, or accessToken)"}`,
  );
}

/** Stat fields that change when a file is written or replaced. */
const versionOf = (stats: Stats) => `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;

export class CredentialsFile implements CredentialsSource {
  private version: string | undefined;
  private loaded: Loaded = { ok: false, problem: "it was not read yet" };
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly path: string,
    private readonly log: Logger,
  ) {
    this.current();
    watchFile(path, { interval: WATCH_INTERVAL_MS, persistent: false }, this.changed);
  }

  /** The stat watcher's callback; its own function, so `close` removes only this file's watch. */
  private readonly changed = () => {
    const before = this.version;
    this.current();
    if (this.version !== before) for (const listener of this.listeners) listener();
  };

  /** A file that cannot be used at start is an error the operator sees at once. */
  static open(path: string, log: Logger): CredentialsFile {
    const file = new CredentialsFile(path, log);
    const loaded = file.current();
    if (!loaded.ok) {
      file.close();
      throw new Error(`${CREDENTIALS_FLAG} ${path}: ${loaded.problem}`);
    }
    return file;
  }

  lookup(
    ref: Pick<BundleRef, "credentials" | "credentialsRef">,
    fieldPath: string,
    options?: LookupOptions,
  ): CredentialsLookup {
    return lookupIn(this, ref, fieldPath, options);
  }

  /** Calls `listener` after the file changed (and was read again). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    unwatchFile(this.path, this.changed);
    this.listeners.clear();
  }

  /** The file as it is now: read again only when its stat changed. */
  current(): Loaded {
    let stats: Stats;
    try {
      stats = statSync(this.path);
    } catch (error) {
      return this.settle("missing", {
        ok: false,
        problem: `it cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`,
      });
    }
    const version = versionOf(stats);
    if (version === this.version) return this.loaded;
    let text: string;
    try {
      text = readFileSync(this.path, "utf8");
    } catch (error) {
      return this.settle(version, {
        ok: false,
        problem: `it cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`,
      });
    }
    // Group- or world-readable credentials are readable by more than the server: say so, once per version.
    if ((stats.mode & 0o077) !== 0) {
      this.log.warn({ file: this.path }, `the credentials file is readable by other users; chmod 600 it`);
    }
    return this.settle(version, parseCredentialsFile(text));
  }

  private settle(version: string, loaded: Loaded): Loaded {
    if (version === this.version) return this.loaded;
    this.version = version;
    this.loaded = loaded;
    if (loaded.ok)
      this.log.info({ file: this.path, entries: loaded.entries.size }, "read the credentials file");
    else this.log.warn({ file: this.path, problem: loaded.problem }, "the credentials file cannot be used");
    return loaded;
  }
}
