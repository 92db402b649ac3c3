import { isDeepStrictEqual } from "node:util";
import type * as pulumi from "@pulumi/pulumi";
import type { KindName } from "../sdk/schema";
import { currentBundle, isWritten, mintDecision, previewRevisions } from "../sdk/schema/minting";
import { isUnknown } from "../sdk/schema/sentinel";
import { isRecord } from "../sdk/shared/records";
import { type AnyObject, KIND_BEHAVIOUR } from "./kinds";
import { isLookup } from "./lookups";
import { ObjectProvider } from "./object-provider";
import type { ProviderSettings } from "./provider-settings";
import type { ObjectInputs, ObjectOutputs } from "./state";
import { find } from "./write/target";

/**
 * A Service's revision names as the dynamic resource class reads them (sdk/resources/resources.ts). Hidden
 * properties (`__`: the CLI leaves them out of every diff it shows), because the dynamic-provider host has no
 * provider previews: the outputs a preview shows for an update are the inputs `check` returned, which hold no
 * `status`. So `check` puts the revisions there when the change mints nothing (known), and leaves them out
 * when it mints (unknown during preview); create, update and read keep them in the outputs, from status.
 */
export const REVISION_KEYS = { latestRevision: "__latestRevision", liveRevision: "__liveRevision" } as const;

/** The properties of an object that are its inputs: what `read` hands back as inputs after a refresh. */
function inputsOf(values: ObjectOutputs): ObjectInputs {
  const { metadata, spec, adopt, await: awaitSettings, logicalName, autoNamed, __provider } = values;
  const { name, labels, annotations } = metadata;
  const filled = (map: Record<string, string> | undefined) =>
    map !== undefined && Object.keys(map).length > 0;
  return {
    ...(adopt !== undefined && { adopt }),
    ...(awaitSettings !== undefined && { await: awaitSettings }),
    ...(autoNamed !== undefined && { autoNamed }),
    ...(__provider !== undefined && { __provider }),
    ...(logicalName !== undefined && { logicalName }),
    metadata: {
      name,
      ...(filled(labels) && { labels }),
      ...(filled(annotations) && { annotations }),
    },
    spec,
  };
}

/**
 * The provider the dynamic resources run: the shared core (`ObjectProvider`, which the native plugin runs too)
 * plus what only this host needs: the revisions a preview shows (above), and, after a refresh that found
 * out-of-band changes, the live object as the resource's inputs, so that the next `preview --diff` shows what
 * `up` will undo property by property (the native plugin's `Read` returns inputs itself).
 */
export class DynamicProvider extends ObjectProvider {
  private configured: ProviderSettings | undefined;

  constructor(private readonly kindName: KindName) {
    super(kindName);
  }

  override use(settings: ProviderSettings): void {
    super.use(settings);
    this.configured = settings;
  }

  override async check(...args: Parameters<ObjectProvider["check"]>): Promise<pulumi.dynamic.CheckResult> {
    const result = await super.check(...args);
    const [olds] = args;
    if (this.kindName !== "Service" || (result.failures?.length ?? 0) > 0 || !isRecord(olds.spec))
      return result;
    const inputs = result.inputs as ObjectInputs;
    const revisions = await this.previewedRevisions(olds as ObjectInputs, inputs);
    return { ...result, inputs: { ...withoutRevisionKeys(inputs), ...revisions } };
  }

  /**
   * The revisions after this update, where a preview can know them: nothing mints, and the API (asked only
   * when the preview may ask it: `serverDryRun`) says what they are now. Otherwise none: unknown in the preview.
   */
  private async previewedRevisions(olds: ObjectInputs, news: ObjectInputs): Promise<Record<string, string>> {
    const settings = this.configured;
    if (!isWritten(olds, news) || settings === undefined || !settings.serverDryRun()) return {};
    const name = news.metadata?.name;
    if (typeof name !== "string" || isUnknown(name)) return {};
    let object: AnyObject | undefined;
    try {
      object = await find(KIND_BEHAVIOUR.Service.accessor(settings.client()), name);
    } catch {
      return {}; // the check's own access test names what is wrong; here the revisions just stay unknown
    }
    if (object === undefined) return {};
    const status = (object.status ?? {}) as { latestRevision?: string; liveRevision?: string };
    const decision = mintDecision(olds, news, currentBundle(status));
    const shown = previewRevisions(decision, status, news.spec);
    const revisions: Record<string, string> = {};
    for (const key of ["latestRevision", "liveRevision"] as const) {
      const value = shown[key];
      if (typeof value === "string" && !isUnknown(value)) revisions[REVISION_KEYS[key]] = value;
    }
    return revisions;
  }

  override async create(inputs: ObjectInputs): Promise<pulumi.dynamic.CreateResult> {
    const result = await super.create(inputs);
    return { ...result, outs: this.withRevisions(result.outs) };
  }

  override async update(
    id: string,
    olds: ObjectOutputs,
    news: ObjectInputs,
  ): Promise<pulumi.dynamic.UpdateResult> {
    const result = await super.update(id, olds, news);
    return { ...result, outs: this.withRevisions(result.outs) };
  }

  override async read(id: string, state: ObjectOutputs): Promise<pulumi.dynamic.ReadResult> {
    const result = await super.read(id, state);
    if (!result.id || result.props === undefined) return result;
    const props = this.withRevisions(result.props) as ObjectOutputs;
    if (isLookup(state)) return { ...result, props }; // a `get`: no inputs of the program's to refresh
    // Out-of-band changes become the inputs, so the next diff shows them as changes `up` undoes; with none,
    // the inputs stay as they are (a refresh without drift changes nothing).
    const refreshed = inputsOf(props);
    const drifted = !isDeepStrictEqual(refreshed, inputsOf(state));
    return { ...result, props, ...(drifted && { inputs: refreshed }) };
  }

  /** A Service's outputs with its revisions from status (null when it has none yet: known, and empty). */
  private withRevisions(outs: unknown): unknown {
    if (this.kindName !== "Service" || !isRecord(outs)) return outs;
    const status = isRecord(outs.status) ? outs.status : {};
    const value = (key: "latestRevision" | "liveRevision") =>
      typeof status[key] === "string" && status[key] !== "" ? status[key] : null;
    return {
      ...withoutRevisionKeys(outs),
      [REVISION_KEYS.latestRevision]: value("latestRevision"),
      [REVISION_KEYS.liveRevision]: value("liveRevision"),
    };
  }
}

function withoutRevisionKeys<T extends object>(values: T): T {
  const {
    [REVISION_KEYS.latestRevision]: _latest,
    [REVISION_KEYS.liveRevision]: _live,
    ...rest
  } = values as Record<string, unknown>;
  return rest as T;
}
