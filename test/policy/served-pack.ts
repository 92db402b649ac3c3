import { spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { createInterface } from "node:readline";
import * as grpc from "@grpc/grpc-js";
import { AnalyzerClient } from "@pulumi/pulumi/proto/analyzer_grpc_pb";
import * as analyzer from "@pulumi/pulumi/proto/analyzer_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { type JavaScriptValue, Struct } from "google-protobuf/google/protobuf/struct_pb";
import type { TestResource } from "./harness";
import { testUrn } from "./harness";

/**
 * The policy pack served the way the Pulumi engine runs it: `policies/index.ts` in a process of its own,
 * talking the analyzer gRPC protocol on 127.0.0.1. The engine's side (reading `--policy-pack-config`, merging
 * it with the pack's defaults) is the CLI's; this client sends the merged result, as the engine does.
 */

export type EnforcementLevel = "advisory" | "mandatory" | "disabled" | "remediate";

const LEVELS: Readonly<Record<EnforcementLevel, analyzer.EnforcementLevel>> = {
  advisory: analyzer.EnforcementLevel.ADVISORY,
  mandatory: analyzer.EnforcementLevel.MANDATORY,
  disabled: analyzer.EnforcementLevel.DISABLED,
  remediate: analyzer.EnforcementLevel.REMEDIATE,
};

function levelName(level: analyzer.EnforcementLevel): EnforcementLevel {
  const found = (Object.keys(LEVELS) as EnforcementLevel[]).find((name) => LEVELS[name] === level);
  if (found === undefined) throw new Error(`unknown enforcement level ${level}`);
  return found;
}

export interface Diagnostic {
  policy: string;
  enforcementLevel: EnforcementLevel;
  message: string;
}

export interface ServedPack {
  /** The pack's name and its policies with their default enforcement levels, as the engine sees them. */
  info(): Promise<{ name: string; policies: { name: string; enforcementLevel: EnforcementLevel }[] }>;
  /** Replaces the pack's config: an enforcement level per policy name (the engine's merged config). */
  configure(levels: Record<string, EnforcementLevel>): Promise<void>;
  analyze(resource: TestResource): Promise<Diagnostic[]>;
  analyzeStack(resources: readonly TestResource[]): Promise<Diagnostic[]>;
  close(): Promise<void>;
}

const policiesDir = path.resolve(__dirname, "../../policies");

function unary<Request, Response>(
  call: (
    request: Request,
    callback: (error: grpc.ServiceError | null, response: Response) => void,
  ) => unknown,
  request: Request,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    call(request, (error, response) => (error ? reject(error) : resolve(response)));
  });
}

function options(): analyzer.AnalyzerResourceOptions {
  return new analyzer.AnalyzerResourceOptions().setCustomtimeouts(
    new analyzer.AnalyzerResourceOptions.CustomTimeouts(),
  );
}

function diagnostics(response: analyzer.AnalyzeResponse): Diagnostic[] {
  return response.getDiagnosticsList().map((diagnostic) => ({
    policy: diagnostic.getPolicyname(),
    enforcementLevel: levelName(diagnostic.getEnforcementlevel()),
    message: diagnostic.getMessage(),
  }));
}

/** Starts the pack from its TypeScript source (no build needed) and connects to it. */
export async function servePack(): Promise<ServedPack> {
  // The pack reads its version from package.json in the working directory, as under the engine.
  const child = spawn(process.execPath, ["-r", "ts-node/register/transpile-only", "index.ts"], {
    cwd: policiesDir,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const exitedEarly = once(child, "exit").then(([code]) => {
    throw new Error(`the policy pack exited with ${code} before serving:\n${stderr}`);
  });
  // Once it serves, exiting is what close() asks for.
  exitedEarly.catch(() => undefined);
  // Like the engine, read the port the pack prints once it listens.
  const [port] = await Promise.race([once(createInterface({ input: child.stdout }), "line"), exitedEarly]);
  const client = new AnalyzerClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());

  return {
    async info() {
      const info = await unary<Empty, analyzer.AnalyzerInfo>(
        client.getAnalyzerInfo.bind(client),
        new Empty(),
      );
      return {
        name: info.getName(),
        policies: info.getPoliciesList().map((policy) => ({
          name: policy.getName(),
          enforcementLevel: levelName(policy.getEnforcementlevel()),
        })),
      };
    },
    async configure(levels) {
      const request = new analyzer.ConfigureAnalyzerRequest();
      for (const [policy, level] of Object.entries(levels)) {
        const config = new analyzer.PolicyConfig().setEnforcementlevel(LEVELS[level]);
        request.getPolicyconfigMap().set(policy, config.setProperties(Struct.fromJavaScript({})));
      }
      await unary<analyzer.ConfigureAnalyzerRequest, Empty>(client.configure.bind(client), request);
    },
    async analyze({ type, name, props, urn }) {
      const request = new analyzer.AnalyzeRequest()
        .setType(type)
        .setName(name)
        .setUrn(urn ?? testUrn(type, name))
        .setProperties(Struct.fromJavaScript(props as Record<string, JavaScriptValue>))
        .setOptions(options());
      return diagnostics(
        await unary<analyzer.AnalyzeRequest, analyzer.AnalyzeResponse>(client.analyze.bind(client), request),
      );
    },
    async analyzeStack(resources) {
      const request = new analyzer.AnalyzeStackRequest().setResourcesList(
        resources.map(({ type, name, props, urn }) =>
          new analyzer.AnalyzerResource()
            .setType(type)
            .setName(name)
            .setUrn(urn ?? testUrn(type, name))
            .setProperties(Struct.fromJavaScript(props as Record<string, JavaScriptValue>))
            .setOptions(options()),
        ),
      );
      return diagnostics(
        await unary<analyzer.AnalyzeStackRequest, analyzer.AnalyzeResponse>(
          client.analyzeStack.bind(client),
          request,
        ),
      );
    },
    async close() {
      client.close();
      const exit = once(child, "exit");
      child.kill();
      await exit;
    },
  };
}
