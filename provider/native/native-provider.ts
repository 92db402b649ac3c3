// The native plugin's operations, on plain values: each one translates the provider protocol's shapes
// (URNs, wire secrets, custom timeouts, provider config) and calls the same core the dynamic provider runs
// (`ObjectProvider`: check, diff, create, read, update, delete, await, create tokens, uid preconditions).
import { isDeepStrictEqual } from "node:util";
import { SETTINGS, type SettingName, unknownSettingMessage } from "../../sdk/client/settings";
import { KIND_OUTPUTS, type OutputSource } from "../../sdk/resources/kind-outputs";
import { kindOfTypeToken } from "../../sdk/resources/type-tokens";
import { type KindName, secretPaths, validateUpdate } from "../../sdk/schema";
import {
  currentBundle,
  isWritten,
  mintDecision,
  previewRevisions,
  type RevisionNames,
} from "../../sdk/schema/minting";
import { UNKNOWN } from "../../sdk/schema/sentinel";
import { isRecord } from "../../sdk/shared/records";
import { type LookedUp, Lookups } from "../lookups";
import type { Autonaming } from "../naming";
import { ObjectProvider } from "../object-provider";
import { PartialFailure } from "../partial-failure";
import { NO_CONFIG, providerSettings } from "../provider-settings";
import { type ConfigSource, settingProblems } from "../settings";
import type { ObjectInputs, ObjectOutputs } from "../state";
import { withStepLog } from "../step-log";
import { detailedDiff, type PropertyChange } from "./detailed-diff";
import { functionOfToken } from "./functions";
import { EXTRA_OUTPUTS } from "./resource-properties";
import { conceal, type Path, reveal } from "./wire-secrets";

type Props = Record<string, unknown>;

export interface CheckFailure {
  property: string;
  reason: string;
}

export interface CheckOutcome {
  inputs: Props;
  failures: CheckFailure[];
  /** What the engine shows on the resource (CheckConfig: a provider key that names no setting). */
  warnings?: string[];
}

/** Provider inputs the engine sends beside the settings. */
const ENGINE_KEYS: ReadonlySet<string> = new Set(["version", "pluginDownloadURL"]);

export interface DiffOutcome {
  changes: boolean;
  replaces: string[];
  deleteBeforeReplace: boolean;
  detailedDiff: Record<string, PropertyChange>;
  /** Why each replacing path cannot change in place, for people. */
  replaceReasons: string[];
}

export interface ReadOutcome {
  /** Empty when the object is gone. */
  id: string;
  properties: Props;
  inputs: Props;
}

const NAME_REASON = "metadata.name: the API names an object once; another name is another object";

/** The kind and the Pulumi name a URN names (`urn:pulumi:<stack>::<project>::<type>::<name>`). */
export function parseUrn(urn: string): { kind: KindName; logicalName: string } {
  const [, , qualifiedType = "", ...name] = urn.split("::");
  const type = qualifiedType.split("$").at(-1) ?? "";
  const kind = kindOfTypeToken(type);
  if (kind === undefined) throw new Error(`the exampledev provider has no resource type ${type} (${urn})`);
  return { kind, logicalName: name.join("::") };
}

/** The provider's inputs (`baseUrl`, `token`, …) read as stack config keys (`exampledev:baseUrl`). */
function configSource(values: Props): ConfigSource {
  const byKey = new Map<string, unknown>(
    (Object.keys(SETTINGS) as SettingName[]).map((name) => [SETTINGS[name].config, values[name]]),
  );
  return {
    get: (key) => {
      const value = byKey.get(key);
      return value === undefined || value === null ? undefined : String(value);
    },
  };
}

/** What the plugin shows on a resource, by its URN: the engine's log. */
export interface ResourceLog {
  /** A warning of the API (severity warning). */
  warn?(urn: string, text: string): Promise<void>;
  /** What a wait waits for now: an ephemeral status line, replaced by the next. */
  status?(urn: string, text: string): Promise<void>;
  /** What a wait ended with (severity info, kept with the resource). */
  info?(urn: string, text: string): Promise<void>;
}

export class NativeProvider {
  private readonly cores = new Map<KindName, ObjectProvider>();
  /** One settings object (so one client) for every kind, from the last configure. */
  private settings = providerSettings(NO_CONFIG);

  /**
   * `log` receives the API's `Warning` texts of each create, update, read and delete, each distinct text once
   * per step, and the progress of each wait (`provider/wait-progress.ts`), before the step answers.
   */
  constructor(private readonly log: ResourceLog = {}) {}

  private core(kind: KindName): ObjectProvider {
    let core = this.cores.get(kind);
    if (core === undefined) {
      core = new ObjectProvider(kind, this.settings);
      this.cores.set(kind, core);
    }
    return core;
  }

  /** The provider's own inputs: every setting checked with the messages the provider fails with; token secret. */
  checkConfig(news: Props): CheckOutcome {
    const { plain } = reveal(news);
    // The message names the setting; a failure naming a property would make the engine print its value,
    // and a base URL can carry credentials.
    const failures = settingProblems(configSource(plain as Props)).map(({ message }) => ({
      property: "",
      reason: message,
    }));
    const secret = (Object.keys(SETTINGS) as SettingName[]).filter((name) => SETTINGS[name].secret);
    // A misspelt key is not an error (it may be some program's), but would otherwise be ignored in silence.
    const warnings = Object.keys(plain as Props)
      .filter((key) => !(key in SETTINGS) && !ENGINE_KEYS.has(key) && !key.startsWith("__"))
      .map((key) => unknownSettingMessage(`${SETTINGS.baseUrl.config.split(":")[0]}:${key}`));
    return {
      inputs: conceal(
        plain,
        secret.map((name) => [name]),
      ) as Props,
      failures,
      warnings,
    };
  }

  /** The settings for every later call: the provider's inputs, else the `exampledev:*` config variables. */
  configure(variables: Record<string, string>, args: Props): void {
    const fromArgs = configSource(reveal(args).plain as Props);
    const settings = providerSettings({ get: (key) => fromArgs.get(key) ?? variables[key] });
    this.settings.close();
    this.settings = settings;
    for (const core of this.cores.values()) core.use(settings);
  }

  /**
   * `autonaming`: the engine's options from the `pulumi:autonaming` config, when it sets any. An unnamed
   * object's generated name is derived from the URN, not from the engine's random seed, which is new in every
   * run: the name a preview shows is the one `up` creates.
   */
  async check(urn: string, olds: Props, news: Props, autonaming?: Autonaming): Promise<CheckOutcome> {
    const { kind, logicalName } = parseUrn(urn);
    const { plain, secrets } = reveal(news);
    const declared = plain as Partial<ObjectInputs>;
    const result = await this.core(kind).check(
      reveal(olds).plain as Partial<ObjectInputs>,
      {
        ...declared,
        metadata: declared.metadata ?? {},
        logicalName,
      } as ObjectInputs,
      { seed: urn, ...(autonaming && { autonaming }) },
    );
    return {
      inputs: this.withSecrets(kind, result.inputs as Props, secrets),
      failures: (result.failures ?? []).map(({ property, reason }) => ({ property, reason })),
    };
  }

  async diff(id: string, urn: string, olds: Props, news: Props): Promise<DiffOutcome> {
    const { kind } = parseUrn(urn);
    const before = reveal(olds).plain as ObjectOutputs;
    const after = reveal(news).plain as ObjectInputs;
    const result = await this.core(kind).diff(id, before, after);
    const replaces = result.replaces ?? [];
    const reasons = new Map(
      validateUpdate(kind, before.spec, after.spec).map((violation) => [violation.path, violation.message]),
    );
    return {
      changes: result.changes === true,
      replaces,
      deleteBeforeReplace: result.deleteBeforeReplace === true,
      detailedDiff: detailedDiff(before, after, replaces),
      replaceReasons: replaces.map((path) =>
        path === "metadata.name" ? NAME_REASON : (reasons.get(path) ?? path),
      ),
    };
  }

  async create(
    urn: string,
    properties: Props,
    timeoutSeconds: number,
  ): Promise<{ id: string; properties: Props }> {
    const { kind } = parseUrn(urn);
    const { plain, secrets } = reveal(properties);
    const result = await this.step(urn, () =>
      this.guard(kind, secrets, () =>
        this.core(kind).create(withAwait(plain as ObjectInputs, timeoutSeconds)),
      ),
    );
    return { id: result.id, properties: this.outputs(kind, result.outs, secrets) };
  }

  async update(id: string, urn: string, olds: Props, news: Props, timeoutSeconds: number): Promise<Props> {
    const { kind } = parseUrn(urn);
    const { plain, secrets } = reveal(news);
    const result = await this.step(urn, () =>
      this.guard(kind, secrets, () =>
        this.core(kind).update(
          id,
          reveal(olds).plain as ObjectOutputs,
          withAwait(plain as ObjectInputs, timeoutSeconds),
        ),
      ),
    );
    return this.outputs(kind, result.outs, secrets);
  }

  /**
   * What an update will output, for a preview (the plugin supports provider previews): the object as state
   * holds it with the declared inputs, and, where `up` decides, unknown values. A Service's revisions are
   * unknown exactly when the change mints one (`sdk/schema/minting.ts`); status (and what derives from it)
   * when the spec changes or a revision may be minted.
   */
  previewUpdate(urn: string, olds: Props, news: Props): Props {
    const { kind } = parseUrn(urn);
    const before = reveal(olds).plain as ObjectOutputs & Props;
    const { plain, secrets } = reveal(news);
    const after = plain as ObjectInputs & Props;
    const specChanged = !isDeepStrictEqual(before.spec, after.spec);
    const decision =
      kind === "Service" ? mintDecision(before, after, currentBundle(before.status)) : undefined;
    const statusChanges = specChanged || (decision !== undefined && decision.outcome !== "none");
    const { uid, creationTimestamp, generation, resourceVersion } = before.metadata ?? {};
    const outputs = this.outputs(
      kind,
      {
        ...after,
        metadata: {
          ...after.metadata,
          uid,
          creationTimestamp,
          // Left out where the write moves them: an unknown member would make the whole metadata unknown
          // to a program (its name too).
          ...(!specChanged && { generation }),
          ...(!isWritten(before, after) && { resourceVersion }),
        },
        status: statusChanges ? UNKNOWN : before.status,
        ...(before.createToken !== undefined && { createToken: before.createToken }),
      },
      secrets,
    );
    if (decision === undefined) return outputs;
    const status = (isRecord(before.status) ? before.status : {}) as RevisionNames;
    const derived = statusChanges
      ? Object.fromEntries(Object.keys(EXTRA_OUTPUTS.Service).map((key) => [key, UNKNOWN]))
      : {};
    return { ...outputs, ...derived, ...previewRevisions(decision, status, after.spec) };
  }

  /**
   * Refresh (state holds the object) and import (state holds nothing but the id, the object's name). An
   * imported object is found by its name only; its inputs are the live object's name, labels, annotations
   * (the create token is the provider's bookkeeping, not an annotation) and spec, with the server's secret
   * placeholders in place of secrets, marked secret.
   */
  async read(id: string, urn: string, properties: Props): Promise<ReadOutcome> {
    const { kind, logicalName } = parseUrn(urn);
    const { plain, secrets } = reveal(properties);
    const importing = (plain as Partial<ObjectOutputs>).metadata === undefined;
    const state = importing
      ? ({ metadata: { name: id }, spec: {}, status: {}, logicalName } as ObjectOutputs)
      : (plain as ObjectOutputs);
    const result = await this.step(urn, () => this.core(kind).read(id, state));
    if (!result.id) return { id: "", properties: {}, inputs: {} };
    const outputs = result.props as ObjectOutputs;
    const { name, labels, annotations } = outputs.metadata;
    const { adopt, skipAwait, autoNamed } = outputs as ObjectOutputs & { skipAwait?: boolean };
    const inputs = {
      metadata: { name, ...(labels && { labels }), ...(annotations && { annotations }) },
      spec: outputs.spec,
      ...(adopt !== undefined && { adopt }),
      ...(skipAwait !== undefined && { skipAwait }),
      ...(!importing && { logicalName: outputs.logicalName, ...(autoNamed !== undefined && { autoNamed }) }),
    };
    return {
      id: result.id,
      properties: this.outputs(kind, outputs, secrets),
      inputs: this.withSecrets(kind, inputs, secrets),
    };
  }

  async delete(id: string, urn: string, properties: Props, timeoutSeconds: number): Promise<void> {
    const { kind } = parseUrn(urn);
    const state = reveal(properties).plain as ObjectOutputs;
    await this.step(urn, () =>
      this.core(kind).delete(id, {
        ...state,
        await: { ...(timeoutSeconds > 0 && { timeoutSeconds }) },
      }),
    );
  }

  /** Runs one step of the resource `urn`, its API warnings and waits shown on it (see the constructor). */
  private step<T>(urn: string, run: () => Promise<T>): Promise<T> {
    const { warn, status, info } = this.log;
    return withStepLog(
      {
        ...(warn && { warn: (text: string) => warn.call(this.log, urn, text) }),
        ...(status && { status: (text: string) => status.call(this.log, urn, text) }),
        ...(info && { info: (text: string) => info.call(this.log, urn, text) }),
      },
      run,
    );
  }

  /** Runs a write; a partial failure's properties get the same treatment as outputs. */
  private async guard<T>(kind: KindName, secrets: Path[], write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof PartialFailure)) throw error;
      throw error.withProperties(this.outputs(kind, error.properties, secrets));
    }
  }

  /**
   * The package's functions (functions.ts): `getService` and its kin read the object named `name`, whoever
   * manages it, as the API returns it (secret values as its placeholders), with the kind's derived outputs;
   * `listServices` and its kin every such object (of a label selector; a Service's revisions), oldest first.
   */
  async invoke(token: string, args: Props): Promise<Props> {
    const fn = functionOfToken(token);
    if (fn === undefined) throw new Error(`the exampledev package has no function ${token}`);
    const { kind } = fn;
    const { name, labelSelector, service } = reveal(args).plain as Props;
    const lookups = new Lookups(this.settings.client(), this.settings.apiAddress());
    const withOutputs = (found: LookedUp) => ({
      ...found,
      ...KIND_OUTPUTS[kind](found as unknown as OutputSource),
    });
    if (fn.list) {
      const query = {
        ...(typeof labelSelector === "string" && labelSelector !== "" && { labelSelector }),
        ...(typeof service === "string" && service !== "" && { service }),
      };
      return { items: (await lookups.list(kind, query)).map(withOutputs) };
    }
    if (typeof name !== "string" || name === "") throw new Error(`${token} needs a name`);
    return withOutputs(await lookups.get(kind, name));
  }

  /**
   * Outputs for the engine: the core's, without its per-call await settings, with the kind's derived outputs
   * (the schema declares them as properties; the dynamic resource classes compute them instead), secrets wrapped.
   */
  private outputs(kind: KindName, outs: unknown, secrets: Path[]): Props {
    const { await: _await, __provider: _provider, ...rest } = outs as Props;
    return this.withSecrets(kind, { ...rest, ...KIND_OUTPUTS[kind](rest as OutputSource) }, secrets);
  }

  /** Wraps what arrived secret and the spec's secret fields. */
  private withSecrets(kind: KindName, values: Props, secrets: Path[]): Props {
    const specSecrets = secretPaths(kind, values.spec).map((path): Path => ["spec", ...path]);
    return conceal(values, [...secrets, ...specSecrets]) as Props;
  }
}

/** The core's await settings for one step: the resource's customTimeouts, and `skipAwait`. */
function withAwait(inputs: ObjectInputs & { skipAwait?: boolean }, timeoutSeconds: number): ObjectInputs {
  return {
    ...inputs,
    await: { ...(timeoutSeconds > 0 && { timeoutSeconds }), ...(inputs.skipAwait && { skip: true }) },
  };
}
