import { isDeepStrictEqual } from "node:util";
import type * as pulumi from "@pulumi/pulumi";
import { ConflictError, NotFoundError, newCreateToken, WaitFailedError } from "../sdk/client";
import { KindWatch } from "../sdk/client/kind-watch";
import { type Condition, waitFor } from "../sdk/client/wait";
import {
  applyDefaults,
  isUnknown,
  type KindName,
  metadataProblems,
  validateSpec,
  validateUpdate,
} from "../sdk/schema";
import { containsUnknown } from "../sdk/schema/sentinel";
import { isAccessFailure } from "./access";
import { deleted } from "./await/conditions";
import { fingerprint } from "./fingerprint";
import { type AnyObject, KIND_BEHAVIOUR } from "./kinds";
import { isLookup, lookedUp, missingObject } from "./lookups";
import { chooseName, type NamingContext } from "./naming";
import { partialFailure } from "./partial-failure";
import { NO_CONFIG, type ProviderSettings, providerSettings } from "./provider-settings";
import { isManaged, type ObjectInputs, type ObjectOutputs, outputsOf, refreshedOutputs } from "./state";
import { stepProgress } from "./step-log";
import { WaitProgress } from "./wait-progress";
import { writeStrategy } from "./write";
import { find } from "./write/target";
import { ObjectWriter } from "./write/writer";

const DEFAULT_AWAIT_SECONDS = 300;

/**
 * The provider of one kind: check, diff, create, read, update and delete over the HTTP API. The dynamic
 * provider host calls it directly; the native plugin (native/native-provider.ts) through its translations.
 */
export class ObjectProvider implements pulumi.dynamic.ResourceProvider {
  private readonly behaviour;
  /**
   * Fingerprints of the inputs `check` returned in this process. The engine diffs the program's checked inputs
   * at preview and up, but `pulumi refresh` also calls `diff` (the refreshed outputs against the stored inputs)
   * without running the program: a server dry run there would ask about an update nobody is making, and fail
   * the refresh on a conflict the refresh should only report.
   */
  private readonly checked = new Set<string>();
  /**
   * Names of objects this process's diffs are replacing. The engine then checks the replacement again without
   * olds, while the old object still holds its name: a generated name skips it, and a create under it (the
   * replacement deletes first) is not asked of the API before the delete.
   */
  private readonly replacing = new Set<string>();
  /** The watch of this kind, per client: a new configure brings a new client. */
  private readonly watches = new WeakMap<object, KindWatch<AnyObject>>();

  constructor(
    private readonly kind: KindName,
    private settings: ProviderSettings = providerSettings(NO_CONFIG),
  ) {
    this.behaviour = KIND_BEHAVIOUR[kind];
  }

  /** The stack config (secrets decrypted): the settings of every later call. */
  async configure(request: pulumi.dynamic.ConfigureRequest): Promise<void> {
    this.use(providerSettings(request.config));
  }

  /** Replaces the settings; the client of the old ones closes. */
  use(settings: ProviderSettings): void {
    if (settings !== this.settings) this.settings.close();
    this.settings = settings;
  }

  /**
   * `naming`: what the native plugin knows of the resource (its URN, Pulumi's autonaming options); the dynamic
   * resources send their URN as `nameSeed` instead.
   */
  async check(
    olds: Partial<ObjectInputs>,
    news: ObjectInputs,
    naming: Pick<NamingContext, "seed" | "autonaming"> = {},
  ): Promise<pulumi.dynamic.CheckResult> {
    // With an API to ask (serverDryRun), first whether it answers at the address and takes the credentials:
    // the preview fails here, naming the setting to fix, rather than the `up` after it.
    const access = await this.settings.accessProblem(this.kind);
    if (access !== undefined) return { inputs: news, failures: [{ property: "", reason: access }] };
    const { nameSeed, ...declared } = news;
    const { failure: nameFailure, ...name } = await chooseName(olds, declared as ObjectInputs, {
      ...naming,
      seed: naming.seed ?? nameSeed ?? declared.logicalName ?? "",
      taken: (candidate) => this.nameTaken(candidate),
    });
    const inputs = { ...declared, ...name };
    // Messages start with their path. A failure names no property: the engine would print the value of a
    // top-level input there, and a spec can hold secrets.
    const failure = (reason: string) => ({ property: "", reason });
    // Metadata syntax is not among the pack's rules, so check reports it whatever the setting below.
    const metadataFailures = [
      ...(nameFailure === undefined ? [] : [failure(nameFailure)]),
      ...(isUnknown(inputs.metadata) ? [] : metadataProblems(inputs.metadata).map(failure)),
    ];
    if (isUnknown(news.spec)) return { inputs, failures: metadataFailures };
    // A program without a spec (JavaScript, or a cast) gets the schema's message, not a serialization error.
    const { spec, ...rest } = inputs;
    const checked = spec === undefined ? rest : { ...rest, spec: applyDefaults(this.kind, spec) };
    // A new resource (no olds): what `up` will create, asked of the API first when serverDryRun is on; not a
    // replacement under the old object's name, which is free only once the replacement deleted it. The engine
    // checks one resource at a time, so the request goes out before the schema check below, which then runs
    // while the API answers; a spec the schema refuses reports the schema's messages, not the API's answer.
    const replacingName = this.replacing.has((checked as ObjectInputs).metadata?.name);
    const asked =
      metadataFailures.length === 0 && spec !== undefined && Object.keys(olds).length === 0 && !replacingName
        ? this.serverDryRun(checked as ObjectInputs, (writer, object) =>
            writer.create(object, newCreateToken(), { dryRun: true }),
          )
        : undefined;
    const specFailures = this.settings.deferValidationToPolicies()
      ? []
      : validateSpec(this.kind, news.spec)
          .filter((violation) => violation.severity === "error")
          .map((violation) => failure(violation.message));
    const failures = [...metadataFailures, ...specFailures];
    if (spec !== undefined) this.checked.add(fingerprint(checked as ObjectInputs));
    const refusal = await asked;
    if (failures.length === 0 && refusal !== undefined) failures.push(failure(refusal));
    return { inputs: checked, failures };
  }

  /**
   * Whether a generated name is held: by an object this process is replacing, or, when the preview asks the
   * API (`serverDryRun`, on by default with an API address), by any object on the server. Fully offline, the
   * first candidate is the name, and a create meeting an object there fails with its `adopt` hint.
   */
  private async nameTaken(name: string): Promise<boolean> {
    if (this.replacing.has(name)) return true;
    if (!this.settings.serverDryRun()) return false;
    return (await find(this.accessor(), name)) !== undefined;
  }

  /**
   * With `exampledev:serverDryRun` (and an API address): runs `write` as a dry run (dryRun=All, nothing is
   * stored) and returns the API's refusal, if any, as a message. The dynamic provider protocol gives `check`
   * and `diff` no way to tell a preview from an update (the host never passes the engine's preview flag),
   * so this runs in both: an `up` asks first, then writes.
   */
  private async serverDryRun(
    inputs: ObjectInputs,
    write: (writer: ObjectWriter, inputs: ObjectInputs) => Promise<unknown>,
  ): Promise<string | undefined> {
    if (!this.settings.serverDryRun()) return undefined;
    // During preview a value that comes from another resource is unknown: nothing to ask yet.
    if (containsUnknown({ metadata: inputs.metadata, spec: inputs.spec, adopt: inputs.adopt }))
      return undefined;
    try {
      await write(this.writer(), inputs);
      return undefined;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // Not the API's verdict on the object: the address or the credentials to fix, named.
      if (isAccessFailure(error)) return message;
      return `the API refused this on a server dry run (dryRun=All, nothing was written): ${message}`;
    }
  }

  async diff(_id: string, olds: ObjectOutputs, news: ObjectInputs): Promise<pulumi.dynamic.DiffResult> {
    const specChanged = !isDeepStrictEqual(olds.spec, news.spec);
    // The schema's rules about changes say what the API cannot apply in place; each path is a replace reason.
    const changeViolations = specChanged ? validateUpdate(this.kind, olds.spec, news.spec) : [];
    const replaces = [
      ...(olds.metadata.name !== news.metadata.name ? ["metadata.name"] : []),
      ...new Set(changeViolations.map((violation) => violation.path)),
    ];
    const sameName = replaces.length > 0 && olds.metadata.name === news.metadata.name;
    // A replacement under the same name must delete first: the API holds one object per name. A generated name
    // is chosen anew for the replacement (the engine checks it again without olds, and the old object still
    // holds its name): that one is created first, and its create is asked about in that check.
    const deleteBeforeReplace = sameName && news.autoNamed !== true;
    if (replaces.length > 0) this.replacing.add(olds.metadata.name);
    if (deleteBeforeReplace) this.refuseDoomedReplacement(news, replaces);
    const metadataChanged =
      !isDeepStrictEqual(olds.metadata.labels, news.metadata.labels) ||
      !isDeepStrictEqual(olds.metadata.annotations, news.metadata.annotations);
    const changes = specChanged || metadataChanged || replaces.length > 0;
    if (changes) await this.dryRunChange(olds, news, replaces, sameName);
    return { changes, replaces, deleteBeforeReplace };
  }

  /**
   * With serverDryRun: the update, or the replacement's create under a new name, asked of the API first. A
   * replacement under the same name deletes first, so its create cannot be asked before (the name is taken
   * until then); `refuseDoomedReplacement` checks its spec instead.
   */
  private async dryRunChange(
    olds: ObjectOutputs,
    news: ObjectInputs,
    replaces: string[],
    deleteBeforeReplace: boolean,
  ): Promise<void> {
    // Not a diff of the program's inputs (a refresh's), or a replacement that deletes first: nothing to ask.
    if (deleteBeforeReplace || !this.checked.has(fingerprint(news))) return;
    const refusal = await this.serverDryRun(news, (writer, inputs) =>
      replaces.length === 0
        ? writer.update(olds, inputs, { dryRun: true })
        : writer.create(inputs, newCreateToken(), { dryRun: true }),
    );
    if (refusal !== undefined) {
      const step = replaces.length === 0 ? "update" : "create of the replacement";
      throw new Error(`${this.kind} "${news.metadata.name}": the ${step} failed: ${refusal}`);
    }
  }

  /**
   * A delete-before-replace removes the live object before the new one is created: if the API is going to
   * refuse the new spec, fail here, before anything is deleted (`check` may have left spec errors to the
   * policy pack).
   */
  private refuseDoomedReplacement(news: ObjectInputs, replaces: string[]): void {
    const errors = validateSpec(this.kind, news.spec).filter((violation) => violation.severity === "error");
    if (errors.length === 0) return;
    throw new Error(
      `${this.kind} "${news.metadata.name}" would be replaced (${replaces.join(", ")} cannot change in place), ` +
        `which deletes it before creating the new one, but the API would refuse the new spec; nothing was changed. ` +
        `Fix: ${errors.map((violation) => violation.message).join("; ")}`,
    );
  }

  async create(inputs: ObjectInputs): Promise<pulumi.dynamic.CreateResult> {
    const object = await this.writer().create(inputs, newCreateToken());
    return { id: inputs.metadata.name, outs: await this.settle(inputs, object) };
  }

  async read(id: string, state: ObjectOutputs): Promise<pulumi.dynamic.ReadResult> {
    if (isLookup(state)) {
      // A resource's static `get` (lookups.ts): the object under the name, whoever manages it.
      const found = await find(this.accessor(), id);
      if (found === undefined) throw missingObject(this.kind, id, this.settings.apiAddress());
      return { id, props: { ...lookedUp(found), ...(state.__provider && { __provider: state.__provider }) } };
    }
    const object = await this.managedObject(id, state);
    if (object === undefined) return { id: "", props: {} };
    const { serverSideApply } = this.settings.writeMode();
    return { id, props: refreshedOutputs(this.kind, state, object, { serverSideApply }) };
  }

  async update(_id: string, olds: ObjectOutputs, news: ObjectInputs): Promise<pulumi.dynamic.UpdateResult> {
    const object = await this.writer().update(olds, news);
    return { outs: await this.settle(news, object) };
  }

  async delete(id: string, state: ObjectOutputs): Promise<void> {
    // Only the object this resource manages, named by its uid: never another object that took the name.
    const uid = state.metadata.uid ?? (await this.managedObject(id, state))?.metadata.uid;
    if (uid === undefined) return;
    try {
      await this.accessor().delete(id, { preconditions: { uid } });
    } catch (error) {
      // Gone, or the name now holds another object (409 on the uid precondition): ours is gone either way.
      if (error instanceof NotFoundError || error instanceof ConflictError) return;
      throw error;
    }
    await this.await(id, deleted(uid), state.await?.timeoutSeconds);
  }

  /** The one watch of this kind for the current client: every wait of this provider looks through it. */
  watch(): KindWatch<AnyObject> {
    const accessor = this.accessor();
    let watch = this.watches.get(accessor);
    if (watch === undefined) {
      watch = new KindWatch(accessor);
      this.watches.set(accessor, watch);
    }
    return watch;
  }

  /**
   * Waits for the kind's readiness after a write. Any error from here on keeps the object in state as
   * partially created (it exists on the server), with the last object seen.
   */
  private async settle(inputs: ObjectInputs, written: AnyObject): Promise<ObjectOutputs> {
    const readiness = this.behaviour.readiness;
    if (readiness === undefined || inputs.await?.skip) return outputsOf(inputs, written);
    const name = inputs.metadata.name;
    const condition = readiness(written);
    // The written object already ready (a metadata-only update of a ready Service: the controller judged
    // this generation): nothing to wait for, nor to look at again.
    if (condition.observe(written).state === "ready") return outputsOf(inputs, written);
    try {
      const ready = await this.await(name, condition, inputs.await?.timeoutSeconds);
      return outputsOf(inputs, ready ?? written);
    } catch (error) {
      const lastSeen =
        (error instanceof WaitFailedError && (error.lastSeen as AnyObject | undefined)) || written;
      const cause = error instanceof Error ? error.message : String(error);
      const message = `${this.kind} "${name}" was written but did not become ready: ${cause}`;
      throw partialFailure(message, inputs, outputsOf(inputs, lastSeen));
    }
  }

  /** One wait; its progress goes to the running step's log when the host shows progress (the native plugin). */
  private async await(name: string, condition: Condition<AnyObject | undefined>, timeoutSeconds?: number) {
    const lines = stepProgress();
    const progress = lines && new WaitProgress(lines);
    try {
      return await waitFor(this.watch(), name, condition, {
        timeoutMs: (timeoutSeconds ?? DEFAULT_AWAIT_SECONDS) * 1000,
        ...(progress && { onObservation: (observation) => progress.observe(observation) }),
      });
    } finally {
      progress?.end();
    }
  }

  /** The object under `name` if it is the one `state` manages (see `isManaged`). */
  private async managedObject(name: string, state: ObjectOutputs): Promise<AnyObject | undefined> {
    const object = await find(this.accessor(), name);
    return object !== undefined && isManaged(state, object) ? object : undefined;
  }

  private writer(): ObjectWriter {
    const context = { kind: this.kind, accessor: this.accessor() };
    return new ObjectWriter(this.kind, writeStrategy(context, this.settings.writeMode()));
  }

  private accessor() {
    return this.behaviour.accessor(this.settings.client());
  }
}
