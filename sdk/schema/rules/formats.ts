import { DURATION_EXAMPLES, parseDuration } from "../duration";
import { KIND_NAMES } from "../kinds";
import { isObjectName, MAX_NAME_LENGTH } from "../metadata";
import type { RuleInfo } from "../violation";
import { quote, SERVICE_KINDS } from "./helpers";

/** A rule about one field's value on its own; the zod field types apply it. */
export interface ValueRule<T> {
  info: RuleInfo;
  accepts(value: T): boolean;
  /** What is wrong and how to fix it (the path is prefixed by the caller). */
  fix(value: T): string;
}

const examples = DURATION_EXAMPLES.map((text) => `"${text}"`).join(", ");

export const durationFormat: ValueRule<string> = {
  info: {
    id: "duration-format",
    kinds: KIND_NAMES,
    path: "spec.shutdown.drainTimeout | spec.shutdown.minimumDrainTime | spec.source.git.previews.ttl | **.runtime.timeout | **.runtime.limits.cpuTime",
    severity: "error",
    description: `A duration is a non-negative Go duration: write numbers with units, such as ${examples} (units ns, us, ms, s, m, h).`,
  },
  accepts: (value) => (parseDuration(value) ?? -1) >= 0,
  fix: (value) =>
    parseDuration(value) === undefined
      ? `${quote(value)} is not a Go duration; write numbers with units, such as ${examples} (units ns, us, ms, s, m, h)`
      : `${quote(value)} is negative; use a duration of 0 or more, such as "30s"`,
};

const DIGEST = /^sha256:[0-9a-f]{64}$/;

export const digestFormat: ValueRule<string> = {
  info: {
    id: "digest-format",
    kinds: SERVICE_KINDS,
    path: "**.digest",
    severity: "error",
    description:
      'A digest has the form "sha256:<64 hex>" (lowercase hex digits): use the digest the registry reports on push.',
  },
  accepts: (value) => DIGEST.test(value),
  fix: (value) =>
    `${quote(value)} is not a digest; use "sha256:" followed by 64 lowercase hex digits, as the registry reports on push`,
};

// <registry_host>[:port]/<path>, the path in the OCI distribution grammar (lowercase components).
const HOST_LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?";
const HOST = `(?:${HOST_LABEL}(?:\\.${HOST_LABEL})*|\\[[0-9A-Fa-f:.]+\\])(?::[0-9]{1,5})?`;
const PATH_COMPONENT = "[a-z0-9]+(?:(?:\\.|_|__|-+)[a-z0-9]+)*";
const REPO = new RegExp(`^${HOST}/${PATH_COMPONENT}(?:/${PATH_COMPONENT})*$`);

export const repoFormat: ValueRule<string> = {
  info: {
    id: "repo-format",
    kinds: SERVICE_KINDS,
    path: "**.repo",
    severity: "error",
    description:
      'A repo has the form "<registry_host>/<path>", such as "registry.example.dev/team/app" or "127.0.0.1:5000/team/app": lowercase path, with tag and digest in their own fields.',
  },
  accepts: (value) => value.length <= 255 && REPO.test(value),
  fix: (value) =>
    `${quote(value)} is not an OCI repository; use "<registry_host>/<path>" such as "registry.example.dev/team/app" or "127.0.0.1:5000/team/app" (lowercase path, no tag or digest: set those in tag and digest)`,
};

const TAG = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;

export const tagFormat: ValueRule<string> = {
  info: {
    id: "tag-format",
    kinds: SERVICE_KINDS,
    path: "**.tag",
    severity: "error",
    description:
      'A tag is an OCI tag: use letters, digits, "_", "." and "-" (not first), at most 128 characters, such as "v1.2.0".',
  },
  accepts: (value) => TAG.test(value),
  fix: (value) =>
    `${quote(value)} is not an OCI tag; use letters, digits, "_", "." and "-" (not first), at most 128 characters, such as "v1.2.0"`,
};

export const dns1123Name: ValueRule<string> = {
  info: {
    id: "dns1123-name",
    kinds: SERVICE_KINDS,
    path: "spec.liveRevision | **.egress.gatewayRef",
    severity: "error",
    description: `spec.liveRevision and egress.gatewayRef name other objects: use lowercase letters, digits, "-" and ".", starting and ending with a letter or digit (at most ${MAX_NAME_LENGTH} characters), or leave them empty for the default.`,
  },
  accepts: (value) => value === "" || isObjectName(value),
  fix: (value) =>
    `${quote(value)} is not a valid object name; use lowercase letters, digits, "-" and ".", starting and ending with a letter or digit (at most ${MAX_NAME_LENGTH} characters), or leave it empty for the default`,
};

export const otelEndpointUrl: ValueRule<string> = {
  info: {
    id: "otel-endpoint-url",
    kinds: ["Proxy"],
    path: "spec.telemetry.thirdPartySinks.openTelemetrySinks[*].endpoint",
    severity: "error",
    description:
      'An OpenTelemetry sink endpoint is an OTLP/HTTP address: use an absolute http(s) URL such as "https://otel.example.dev:4318".',
  },
  accepts: (value) => {
    if (!URL.canParse(value)) return false;
    const { protocol, hostname } = new URL(value);
    return (protocol === "http:" || protocol === "https:") && hostname !== "";
  },
  fix: (value) =>
    `${quote(value)} is not an http(s) URL; use the collector's OTLP/HTTP address such as "https://otel.example.dev:4318"`,
};

// Kubernetes resource quantity: a number with an optional binary, decimal or exponent suffix.
const QUANTITY = /^\+?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+|Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E)?$/;

export const quantityFormat: ValueRule<string> = {
  info: {
    id: "quantity-format",
    kinds: SERVICE_KINDS,
    path: "**.runtime.limits.memory",
    severity: "error",
    description:
      'runtime.limits.memory is a resource quantity: use a form such as "128Mi", "1Gi" or a plain count of bytes.',
  },
  accepts: (value) => QUANTITY.test(value),
  fix: (value) =>
    `${quote(value)} is not a quantity; use a form such as "128Mi", "1Gi" or a plain count of bytes`,
};

// RFC 4648 base64 with the standard alphabet, padded to a multiple of 4: what Kubernetes' byte fields take.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export const keyDataBase64: ValueRule<string> = {
  info: {
    id: "key-data-base64",
    kinds: ["Proxy"],
    path: "spec.telemetry.thirdPartySinks.*.keyData",
    severity: "error",
    description:
      'An API key\'s keyData holds the key\'s bytes in base64 (letters, digits, "+" and "/", padded with "=" to a multiple of 4 characters): encode the key, e.g. with `base64 -w0`, or write a text key in key instead.',
  },
  accepts: (value) => BASE64.test(value),
  // The value is a secret: the message never quotes it.
  fix: () =>
    'the value (not shown: it is a secret) is not base64; write the key\'s bytes in base64 (letters, digits, "+" and "/", padded with "=" to a multiple of 4 characters), e.g. from `base64 -w0 key.bin`, or write a text key in key instead',
};
