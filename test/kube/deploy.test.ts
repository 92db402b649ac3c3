import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LEASE_NAME } from "../../controller/leader-election";
import { ADMISSION_IDENTITY, CONTROLLER_IDENTITY } from "../../deploy/identities";
import { DEPLOY_FILES, OPTIONAL_DIR } from "../../deploy/manifests";
import { type KubeApi, startKubeApi } from "../../kube/api";
import { INSTALL_FIELD_MANAGER } from "../../kube/install";
import { SECRETS_NAMESPACE } from "../../sdk/schema";

/**
 * The generated deploy/ manifests against kube-apiserver: accepted whole by a server-side dry run (and
 * deploy/optional/ where what it needs is installed), and the controller's identity (as `npm run kube` installs it from the same objects) allowed what the controller
 * does and nothing more.
 */

const REPO = path.resolve(__dirname, "../..");
const run = promisify(execFile);

describe("deploy/ on kube-apiserver", () => {
  let api: KubeApi;
  const kubectl = (...args: string[]) => run("kubectl", [`--kubeconfig=${api.kubeconfig}`, ...args]);

  beforeAll(async () => {
    api = await startKubeApi();
  });
  afterAll(async () => {
    await api?.close();
  });

  // As the field manager that installed the environment (a url for the webhook): applying deploy/ over it
  // replaces the url by the in-cluster Service, as an upgrade from `npm run kube`'s install would.
  it("`kubectl apply --server-side --dry-run=server -f deploy/` accepts every object", async () => {
    const { stdout } = await kubectl(
      ...["apply", "--server-side", `--field-manager=${INSTALL_FIELD_MANAGER}`, "--dry-run=server"],
      ...["-f", path.join(REPO, "deploy/")],
    );
    const objects = DEPLOY_FILES.filter((file) => !file.path.startsWith(OPTIONAL_DIR)).flatMap((file) =>
      file.objects(),
    );
    const applied = stdout.trim().split("\n");
    expect(applied).toHaveLength(objects.length);
    for (const line of applied) expect(line).toMatch(/ serverside-applied \(server dry run\)$/);
    expect(stdout).toContain(`deployment.apps/${CONTROLLER_IDENTITY.name}`);
    expect(stdout).toContain(`deployment.apps/${ADMISSION_IDENTITY.name}`);
    expect(stdout).toContain(`service/${ADMISSION_IDENTITY.name}`);
  });

  // cert-manager's own CRDs (trimmed to the fields used) stand in for cert-manager, which does not run here.
  it("accepts deploy/optional/ where cert-manager's and the Prometheus Operator's CRDs are installed", async () => {
    await kubectl("apply", "--server-side", "-f", path.join(__dirname, "fixtures/cert-manager-crds.yaml"));
    await kubectl(
      "apply",
      "--server-side",
      "-f",
      path.join(__dirname, "fixtures/prometheus-operator-crds.yaml"),
    );
    await kubectl(
      ...["wait", "--for=condition=Established", "--timeout=60s"],
      ...["crd/certificates.cert-manager.io", "crd/issuers.cert-manager.io"],
      ...["crd/servicemonitors.monitoring.coreos.com", "crd/prometheusrules.monitoring.coreos.com"],
    );
    // Every optional file: cert-manager's objects, the webhook's NetworkPolicy, the monitoring objects.
    const files = DEPLOY_FILES.filter(({ path }) => path.startsWith(OPTIONAL_DIR));
    const { stdout } = await kubectl(
      ...["apply", "--server-side", "--dry-run=server", "--validate=strict"],
      ...["-f", path.join(REPO, OPTIONAL_DIR)],
    );
    const applied = stdout.trim().split("\n");
    expect(applied).toHaveLength(files.reduce((count, file) => count + file.objects().length, 0));
    for (const line of applied) expect(line).toMatch(/ serverside-applied \(server dry run\)$/);
    expect(stdout).toContain(`certificate.cert-manager.io/${ADMISSION_IDENTITY.name}`);
    expect(stdout).toContain(`networkpolicy.networking.k8s.io/${ADMISSION_IDENTITY.name}`);
    expect(stdout).toContain("prometheusrule.monitoring.coreos.com/exampledev");
  });

  it("lets the controller's service account do what the controller does, and no more", async () => {
    const user = `system:serviceaccount:${SECRETS_NAMESPACE}:${CONTROLLER_IDENTITY.name}`;
    const canI = async (...args: string[]) => {
      const answer = await kubectl("auth", "can-i", `--as=${user}`, ...args).catch(
        (error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }),
      );
      return answer.stdout.trim();
    };
    const asked: [string[], string][] = [
      [["watch", "services.compute.example.dev"], "yes"],
      [["create", "servicerevisions.compute.example.dev"], "yes"],
      [["update", "services.compute.example.dev", "--subresource=status"], "yes"],
      [["get", "secrets", "-n", SECRETS_NAMESPACE], "yes"],
      [["update", `leases/${DEFAULT_LEASE_NAME}`, "-n", SECRETS_NAMESPACE], "yes"],
      [["create", "leases", "-n", SECRETS_NAMESPACE], "yes"],
      [["update", "servicerevisions.compute.example.dev"], "no"],
      [["list", "proxies.core.example.dev"], "yes"],
      [["patch", "proxies.core.example.dev"], "yes"],
      [["update", "proxies.core.example.dev"], "no"],
      [["delete", "proxies.core.example.dev"], "no"],
      [["patch", "services.compute.example.dev"], "no"],
      [["list", "secrets", "-n", SECRETS_NAMESPACE], "no"],
      [["get", "secrets", "-n", "default"], "no"],
      [["update", "leases/another", "-n", SECRETS_NAMESPACE], "no"],
      [["create", "leases", "-n", "default"], "no"],
    ];
    const answers = await Promise.all(asked.map(async ([args]) => [args.join(" "), await canI(...args)]));
    expect(Object.fromEntries(answers)).toEqual(
      Object.fromEntries(asked.map(([args, answer]) => [args.join(" "), answer])),
    );
  });
});
