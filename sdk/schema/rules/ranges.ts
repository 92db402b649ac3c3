import type { ValueRule } from "./formats";

export const backendPortRange: ValueRule<number> = {
  info: {
    id: "backend-port-range",
    kinds: ["Service", "ServiceRevision"],
    path: "**.backend.port",
    severity: "error",
    description: "backend.port is a TCP/UDP port number from 1 to 65535.",
  },
  accepts: (value) => value >= 1 && value <= 65535,
  fix: (value) => `${value} is not a port number; use a port from 1 to 65535`,
};

export const revisionHistoryRange: ValueRule<number> = {
  info: {
    id: "revision-history-range",
    kinds: ["Service"],
    path: "spec.revisionHistoryLimit",
    severity: "error",
    description: "revisionHistoryLimit counts retained revisions, so it cannot be negative.",
  },
  accepts: (value) => value >= 0,
  fix: (value) => `${value} is negative; set a count of revisions to keep, 0 or more (default 10)`,
};
