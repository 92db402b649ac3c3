// The gRPC face of the native plugin: Pulumi's ResourceProvider service, with the protocol definitions that
// ship in @pulumi/pulumi. Not `main()` of `@pulumi/pulumi/provider`: in 3.259.0 it answers CheckConfig with
// "not implemented", hands the provider none of Configure's variables, drops Diff's detailed diff and
// the steps' timeouts, and this plugin needs all four. Each handler converts structs and errors; the
// operations themselves are NativeProvider's.
import * as grpc from "@grpc/grpc-js";
import * as engineRpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import * as engineProto from "@pulumi/pulumi/proto/engine_pb";
import * as pluginProto from "@pulumi/pulumi/proto/plugin_pb";
import * as providerRpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as providerProto from "@pulumi/pulumi/proto/provider_pb";
import * as statusProto from "@pulumi/pulumi/proto/status_pb";
import * as anyProto from "google-protobuf/google/protobuf/any_pb";
import * as emptyProto from "google-protobuf/google/protobuf/empty_pb";
import * as structProto from "google-protobuf/google/protobuf/struct_pb";
import type { Autonaming } from "../naming";
import { PartialFailure } from "../partial-failure";
import type { ChangeKind } from "./detailed-diff";
import { type CheckOutcome, NativeProvider } from "./native-provider";
import { packageSchema } from "./package-schema";

type Props = Record<string, unknown>;
type Unary<Req, Res> = grpc.handleUnaryCall<Req, Res>;

/** A struct from plain data: undefined members are left out (JSON's rule), which protobuf's Value cannot hold. */
function toStruct(value: unknown): structProto.Struct {
  return structProto.Struct.fromJavaScript(JSON.parse(JSON.stringify(value ?? {})));
}

function fromStruct(struct: structProto.Struct | undefined): Props {
  return (struct?.toJavaScript() ?? {}) as Props;
}

const DIFF_KINDS: Record<ChangeKind, [providerProto.PropertyDiff.Kind, providerProto.PropertyDiff.Kind]> = {
  add: [providerProto.PropertyDiff.Kind.ADD, providerProto.PropertyDiff.Kind.ADD_REPLACE],
  delete: [providerProto.PropertyDiff.Kind.DELETE, providerProto.PropertyDiff.Kind.DELETE_REPLACE],
  update: [providerProto.PropertyDiff.Kind.UPDATE, providerProto.PropertyDiff.Kind.UPDATE_REPLACE],
};

/**
 * The error sent for a failed step. An object that exists but failed to initialise travels as
 * `ErrorResourceInitFailed` in the status details, so the engine records it rather than losing it.
 */
function grpcError(error: unknown): grpc.ServiceError {
  const message = error instanceof Error ? error.message : String(error);
  const metadata = new grpc.Metadata();
  if (error instanceof PartialFailure) {
    const detail = new providerProto.ErrorResourceInitFailed();
    detail.setId(error.id);
    detail.setProperties(toStruct(error.properties));
    detail.setReasonsList(error.reasons);
    const packed = new anyProto.Any();
    packed.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
    const status = new statusProto.Status();
    status.setCode(grpc.status.UNKNOWN);
    status.setMessage(message);
    status.addDetails(packed);
    metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
  }
  return Object.assign(new Error(message), { code: grpc.status.UNKNOWN, details: message, metadata });
}

/** Runs `work` and answers with its result, or with its error. */
function answer<Req, Res>(work: (request: Req) => Promise<Res> | Res): Unary<Req, Res> {
  return (call, callback) => {
    Promise.resolve()
      .then(() => work(call.request))
      .then(
        (response) => callback(null, response),
        (error: unknown) => callback(grpcError(error), null),
      );
  };
}

const AUTONAMING_MODES: Record<providerProto.CheckRequest.AutonamingOptions.Mode, Autonaming["mode"]> = {
  [providerProto.CheckRequest.AutonamingOptions.Mode.PROPOSE]: "propose",
  [providerProto.CheckRequest.AutonamingOptions.Mode.ENFORCE]: "enforce",
  [providerProto.CheckRequest.AutonamingOptions.Mode.DISABLE]: "disable",
};

/** The `pulumi:autonaming` options the engine sends (only to a provider that says it supports them), if any. */
function autonamingOf(request: providerProto.CheckRequest): Autonaming | undefined {
  const options = request.getAutonaming();
  if (options === undefined) return undefined;
  return { mode: AUTONAMING_MODES[options.getMode()] ?? "propose", proposedName: options.getProposedName() };
}

function checkResponse(outcome: CheckOutcome): providerProto.CheckResponse {
  const response = new providerProto.CheckResponse();
  response.setInputs(toStruct(outcome.inputs));
  response.setFailuresList(
    outcome.failures.map(({ property, reason }) => {
      const failure = new providerProto.CheckFailure();
      failure.setProperty(property);
      failure.setReason(reason);
      return failure;
    }),
  );
  return response;
}

/**
 * Sends to the engine's log, on a resource: warnings (the replace reasons, which the CLI prints beside the
 * diff, a warning since a replacement deletes the live object; the API's `Warning` headers), and a wait's
 * progress: status lines as ephemeral info (the CLI shows the newest beside the resource's row while the step
 * runs, and drops it after, as pulumi-kubernetes' `LogStatus`), its outcome as info.
 */
class EngineLog {
  private readonly client: engineRpc.EngineClient | undefined;

  constructor(address: string | undefined) {
    this.client =
      address === undefined
        ? undefined
        : new engineRpc.EngineClient(address, grpc.credentials.createInsecure());
  }

  warn(urn: string, message: string): Promise<void> {
    return this.send(engineProto.LogSeverity.WARNING, urn, message, false);
  }

  status(urn: string, message: string): Promise<void> {
    return this.send(engineProto.LogSeverity.INFO, urn, message, true);
  }

  info(urn: string, message: string): Promise<void> {
    return this.send(engineProto.LogSeverity.INFO, urn, message, false);
  }

  private send(severity: engineProto.LogSeverity, urn: string, message: string, ephemeral: boolean) {
    const client = this.client;
    if (client === undefined) return Promise.resolve();
    const request = new engineProto.LogRequest();
    request.setSeverity(severity);
    request.setUrn(urn);
    request.setMessage(message);
    request.setEphemeral(ephemeral);
    // A log that does not arrive must not fail the step.
    return new Promise<void>((resolve) => client.log(request, () => resolve()));
  }
}

/** The ResourceProvider service, given the engine's address (its first argument) and the plugin's version. */
export function providerService(version: string, engineAddress: string | undefined) {
  const log = new EngineLog(engineAddress);
  const provider = new NativeProvider(log);
  let schema: string | undefined;
  return {
    getPluginInfo: answer<emptyProto.Empty, pluginProto.PluginInfo>(() => {
      const info = new pluginProto.PluginInfo();
      info.setVersion(version);
      return info;
    }),
    getSchema: answer<providerProto.GetSchemaRequest, providerProto.GetSchemaResponse>(() => {
      schema ??= JSON.stringify(packageSchema(version));
      const response = new providerProto.GetSchemaResponse();
      response.setSchema(schema);
      return response;
    }),
    checkConfig: answer<providerProto.CheckRequest, providerProto.CheckResponse>(async (request) => {
      const outcome = provider.checkConfig(fromStruct(request.getNews()));
      for (const warning of outcome.warnings ?? []) await log.warn(request.getUrn(), warning);
      return checkResponse(outcome);
    }),
    configure: answer<providerProto.ConfigureRequest, providerProto.ConfigureResponse>((request) => {
      const variables = Object.fromEntries(request.getVariablesMap().toArray());
      provider.configure(variables, fromStruct(request.getArgs()));
      const response = new providerProto.ConfigureResponse();
      response.setAcceptsecrets(true);
      // Previews of creates and updates come here (`request.getPreview()`), which write nothing: an update's
      // preview outputs say what stays known (a Service's revisions when nothing mints) and what `up` decides.
      response.setSupportspreview(true);
      response.setAcceptresources(false);
      response.setAcceptoutputs(false);
      // The engine sends the `pulumi:autonaming` config's name (or its `disabled`) with each Check.
      response.setSupportsAutonamingConfiguration(true);
      return response;
    }),
    check: answer<providerProto.CheckRequest, providerProto.CheckResponse>(async (request) =>
      checkResponse(
        await provider.check(
          request.getUrn(),
          fromStruct(request.getOlds()),
          fromStruct(request.getNews()),
          autonamingOf(request),
        ),
      ),
    ),
    diff: answer<providerProto.DiffRequest, providerProto.DiffResponse>(async (request) => {
      const urn = request.getUrn();
      const outcome = await provider.diff(
        request.getId(),
        urn,
        fromStruct(request.getOlds()),
        fromStruct(request.getNews()),
      );
      const response = new providerProto.DiffResponse();
      response.setChanges(
        outcome.changes
          ? providerProto.DiffResponse.DiffChanges.DIFF_SOME
          : providerProto.DiffResponse.DiffChanges.DIFF_NONE,
      );
      response.setReplacesList(outcome.replaces);
      response.setDeletebeforereplace(outcome.deleteBeforeReplace);
      response.setHasdetaileddiff(true);
      const details = response.getDetaileddiffMap();
      for (const [path, change] of Object.entries(outcome.detailedDiff)) {
        const diff = new providerProto.PropertyDiff();
        diff.setKind(DIFF_KINDS[change.kind][change.replace ? 1 : 0]);
        diff.setInputdiff(true);
        details.set(path, diff);
      }
      for (const reason of outcome.replaceReasons) await log.warn(urn, `replaced because ${reason}`);
      return response;
    }),
    create: answer<providerProto.CreateRequest, providerProto.CreateResponse>(async (request) => {
      if (request.getPreview()) {
        // What the engine shows for a provider without previews: the checked inputs (no id yet).
        const response = new providerProto.CreateResponse();
        response.setId("");
        const properties = request.getProperties();
        if (properties !== undefined) response.setProperties(properties);
        return response;
      }
      const created = await provider.create(
        request.getUrn(),
        fromStruct(request.getProperties()),
        request.getTimeout(),
      );
      const response = new providerProto.CreateResponse();
      response.setId(created.id);
      response.setProperties(toStruct(created.properties));
      return response;
    }),
    read: answer<providerProto.ReadRequest, providerProto.ReadResponse>(async (request) => {
      const outcome = await provider.read(
        request.getId(),
        request.getUrn(),
        fromStruct(request.getProperties()),
      );
      const response = new providerProto.ReadResponse();
      response.setId(outcome.id);
      response.setProperties(toStruct(outcome.properties));
      response.setInputs(toStruct(outcome.inputs));
      return response;
    }),
    update: answer<providerProto.UpdateRequest, providerProto.UpdateResponse>(async (request) => {
      if (request.getPreview()) {
        const response = new providerProto.UpdateResponse();
        response.setProperties(
          toStruct(
            provider.previewUpdate(
              request.getUrn(),
              fromStruct(request.getOlds()),
              fromStruct(request.getNews()),
            ),
          ),
        );
        return response;
      }
      const properties = await provider.update(
        request.getId(),
        request.getUrn(),
        fromStruct(request.getOlds()),
        fromStruct(request.getNews()),
        request.getTimeout(),
      );
      const response = new providerProto.UpdateResponse();
      response.setProperties(toStruct(properties));
      return response;
    }),
    delete: answer<providerProto.DeleteRequest, emptyProto.Empty>(async (request) => {
      await provider.delete(
        request.getId(),
        request.getUrn(),
        fromStruct(request.getProperties()),
        request.getTimeout(),
      );
      return new emptyProto.Empty();
    }),
    invoke: answer<providerProto.InvokeRequest, providerProto.InvokeResponse>(async (request) => {
      const response = new providerProto.InvokeResponse();
      response.setReturn(toStruct(await provider.invoke(request.getTok(), fromStruct(request.getArgs()))));
      return response;
    }),
    cancel: answer<emptyProto.Empty, emptyProto.Empty>(() => new emptyProto.Empty()),
    attach: answer<pluginProto.PluginAttach, emptyProto.Empty>(() => new emptyProto.Empty()),
  };
}

/**
 * Serves the plugin on a free loopback port and prints the port, as the engine expects of a plugin. The
 * engine passes its address as the first argument that is not a flag.
 */
export async function serve(args: readonly string[], version: string): Promise<void> {
  const engineAddress = args.find((arg, index) => !arg.startsWith("-") && args[index - 1] !== "--tracing");
  const server = new grpc.Server({
    "grpc.max_receive_message_length": 400 * 1024 * 1024,
    "grpc.max_send_message_length": 400 * 1024 * 1024,
  });
  server.addService(
    providerRpc.ResourceProviderService,
    providerService(version, engineAddress) as unknown as grpc.UntypedServiceImplementation,
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  console.log(String(port));
}
