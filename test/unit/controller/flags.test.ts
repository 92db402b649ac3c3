import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { connectionOf } from "../../../cli/connection";
import { FlagError } from "../../../cli/flags";
import { controllerSettings } from "../../../controller/flags";

describe("the controller's flags", () => {
  it("defaults to the local server's settings", () => {
    expect(controllerSettings({}, {})).toEqual({
      egressGateways: ["default"],
      logLevel: "info",
      tagPollIntervalMs: 30_000,
      proxyDeletionGraceMs: 1000,
      workers: 8,
      git: {
        pollIntervalMs: 30_000,
        buildCommands: false,
        buildTimeoutMs: 600_000,
        maxCloneBytes: 1024 ** 3,
      },
    });
  });

  it("reads lists, durations and sizes", () => {
    const settings = controllerSettings({
      "egress-gateways": "a, b,,",
      "tag-poll-interval": "0",
      "git-allow": "https://git.example.dev/team/",
      "build-timeout": "1m30s",
      "git-max-clone-size": "1.5Mi",
      credentials: "creds.yaml",
      "controller-workers": "2",
    });
    expect(settings).toMatchObject({
      workers: 2,
      egressGateways: ["a", "b"],
      tagPollIntervalMs: 0,
      credentialsFile: "creds.yaml",
      git: { allow: ["https://git.example.dev/team/"], buildTimeoutMs: 90_000, maxCloneBytes: 1572864 },
    });
  });

  it("takes the Proxy drain from --proxy-deletion-grace, else EXAMPLEDEV_PROXY_DELETION_GRACE", () => {
    const env = { EXAMPLEDEV_PROXY_DELETION_GRACE: "5s" };
    expect(controllerSettings({ "proxy-deletion-grace": "250ms" }, env).proxyDeletionGraceMs).toBe(250);
    expect(controllerSettings({}, env).proxyDeletionGraceMs).toBe(5000);
    expect(controllerSettings({ "proxy-deletion-grace": "0" }, env).proxyDeletionGraceMs).toBe(0);
    expect(() => controllerSettings({}, { EXAMPLEDEV_PROXY_DELETION_GRACE: "later" })).toThrow(
      '--proxy-deletion-grace: "later" is not a duration',
    );
  });

  it.each([
    [{ "log-level": "loud" }, "--log-level: use one of"],
    [{ "tag-poll-interval": "soon" }, '--tag-poll-interval: "soon" is not a duration'],
    [{ "build-timeout": "0" }, '--build-timeout: "0" is not a duration such as 30s, 10m'],
    [{ "git-max-clone-size": "big" }, '--git-max-clone-size: "big" is not a size'],
    [{ "git-allow": " , " }, "--git-allow: name at least one URL prefix"],
    [{ credentials: "" }, "--credentials: give the path"],
    [{ "controller-workers": "0" }, '--controller-workers: "0" is not a whole number from 1 to 1000'],
  ])("refuses %o, naming the flag", (values, message) => {
    expect(() => controllerSettings(values)).toThrow(FlagError);
    expect(() => controllerSettings(values)).toThrow(message);
  });
});

describe("where the controller command connects", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "controller-connection-"));
  const kubeconfig = path.join(dir, "kubeconfig");
  writeFileSync(
    kubeconfig,
    stringify({
      apiVersion: "v1",
      kind: "Config",
      "current-context": "main",
      clusters: [
        { name: "c", cluster: { server: "https://10.0.0.1:6443", "insecure-skip-tls-verify": true } },
      ],
      users: [
        { name: "u", user: { token: "main-token" } },
        { name: "v", user: { token: "other-token" } },
      ],
      contexts: [
        { name: "main", context: { cluster: "c", user: "u" } },
        { name: "other", context: { cluster: "c", user: "v" } },
      ],
    }),
  );

  it("uses --kubeconfig and --context, else $KUBECONFIG", () => {
    expect(connectionOf({ kubeconfig, context: "other" }, {})).toEqual({
      baseUrl: "https://10.0.0.1:6443",
      insecureSkipTlsVerify: true,
      token: "other-token",
    });
    expect(connectionOf({}, { KUBECONFIG: kubeconfig })).toMatchObject({ token: "main-token" });
  });

  it("outside a pod and without a kubeconfig, says what to give", () => {
    expect(() => connectionOf({}, {})).toThrow("--kubeconfig: name a kubeconfig file");
    expect(() => connectionOf({ context: "other" }, {})).toThrow("--context needs --kubeconfig");
  });
});
