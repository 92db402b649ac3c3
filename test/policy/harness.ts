import type {
  PolicyResource,
  PolicyResourceOptions,
  ResourceValidationArgs,
  ResourceValidationPolicy,
  StackValidationPolicy,
} from "@pulumi/policy";
import * as policySdk from "@pulumi/policy";

/**
 * A test harness for policies (@pulumi/policy has none): runs a policy's `validateResource` or a stack policy's
 * `validateStack` on constructed resources the way the policy server does, and returns what it reported.
 */

/** A resource as the engine describes it to a policy; `urn` defaults to one built from type and name. */
export interface TestResource {
  type: string;
  name: string;
  props: Record<string, unknown>;
  urn?: string;
}

/** One `reportViolation` call of a stack policy: the message and the URN it was reported against. */
export interface StackReport {
  message: string;
  urn: string | undefined;
}

export interface RunOptions {
  /** The policy's config properties, as `getConfig()` returns them. */
  config?: Record<string, unknown>;
  stackTags?: ReadonlyMap<string, string>;
}

export function testUrn(type: string, name: string): string {
  return `urn:pulumi:test::policy-harness::${type}::${name}`;
}

// The policy server wraps props in this proxy, which throws on reading an unknown value; the SDK exports it at
// run time but leaves it out of its typings.
const { unknownCheckingProxy } = policySdk as unknown as {
  unknownCheckingProxy<T extends object>(props: T): T;
};

const NO_OPTIONS: PolicyResourceOptions = {
  protect: false,
  ignoreChanges: [],
  aliases: [],
  customTimeouts: { createSeconds: 0, updateSeconds: 0, deleteSeconds: 0 },
  additionalSecretOutputs: [],
};

/** Thrown by `notApplicable()`; the server records the policy as not applicable and reports nothing. */
class NotApplicable extends Error {}

function notApplicable(reason?: string): never {
  throw new NotApplicable(reason);
}

function unsupportedTypeCheck(): never {
  throw new Error("the policy harness matches type tokens only; compare args.type instead of isType/asType");
}

function describe(resource: TestResource, props: Record<string, unknown>) {
  return {
    type: resource.type,
    name: resource.name,
    urn: resource.urn ?? testUrn(resource.type, resource.name),
    props,
    opts: NO_OPTIONS,
    isType: unsupportedTypeCheck,
    asType: unsupportedTypeCheck,
  };
}

async function collectingNotApplicable(run: () => Promise<void> | void): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (!(error instanceof NotApplicable)) throw error;
  }
}

/** Runs every validation of a resource policy on one resource; returns the reported messages in order. */
export async function runResourcePolicy(
  policy: ResourceValidationPolicy,
  resource: TestResource,
  options: RunOptions = {},
): Promise<string[]> {
  const messages: string[] = [];
  const validations = [policy.validateResource ?? []].flat();
  for (const validate of validations) {
    const args: ResourceValidationArgs = {
      ...describe(resource, unknownCheckingProxy(structuredClone(resource.props))),
      stackTags: options.stackTags ?? new Map(),
      getConfig: <T extends object>() => (options.config ?? {}) as T,
      notApplicable,
    };
    await collectingNotApplicable(() => validate(args, (message) => messages.push(message)));
  }
  return messages;
}

/** Runs a stack policy on the given resources; returns each report with the URN it names. */
export async function runStackPolicy(
  policy: StackValidationPolicy,
  resources: readonly TestResource[],
  options: RunOptions = {},
): Promise<StackReport[]> {
  const reports: StackReport[] = [];
  const stack: PolicyResource[] = resources.map((resource) => ({
    ...describe(resource, unknownCheckingProxy(structuredClone(resource.props))),
    dependencies: [],
    propertyDependencies: {},
  }));
  await collectingNotApplicable(() =>
    policy.validateStack(
      {
        resources: stack,
        stackTags: options.stackTags ?? new Map(),
        getConfig: <T extends object>() => (options.config ?? {}) as T,
        notApplicable,
      },
      (message, urn) => reports.push({ message, urn }),
    ),
  );
  return reports;
}

/**
 * Runs a policy's `remediateResource` on one resource the way the policy server does; returns the remediated
 * properties as plain JSON, or undefined when the remediation changes nothing.
 */
export async function runRemediation(
  policy: ResourceValidationPolicy,
  resource: TestResource,
  options: RunOptions = {},
): Promise<Record<string, unknown> | undefined> {
  if (policy.remediateResource === undefined) throw new Error(`${policy.name} has no remediation`);
  const args: ResourceValidationArgs = {
    ...describe(resource, unknownCheckingProxy(structuredClone(resource.props))),
    stackTags: options.stackTags ?? new Map(),
    getConfig: <T extends object>() => (options.config ?? {}) as T,
    notApplicable,
  };
  const remediated = await policy.remediateResource(args);
  return remediated === undefined ? undefined : JSON.parse(JSON.stringify(remediated));
}
