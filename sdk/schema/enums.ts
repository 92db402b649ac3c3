/** The allowed values of section 2's enumerated strings (DESIGN.md, "Where the spec says not shown"). */

export const BACKEND_PROTOCOLS = ["http1", "http2", "tcp", "udp"] as const;
/** Protocols for which backend.port is required; for the others it is ignored. */
export const PORT_PROTOCOLS: readonly string[] = ["tcp", "udp"];

/** Each binding type names the sub-object that carries its settings. */
export const BINDING_TYPES = ["kv", "secret", "service"] as const;

export const FILTER_PHASES = ["request", "response"] as const;
export const FAILURE_MODES = ["failClosed", "failOpen"] as const;

/** The Proxy provider value of managed (cloud-hosted) proxies; any other provider is self-managed. */
export const MANAGED_PROVIDER = "cloud";
