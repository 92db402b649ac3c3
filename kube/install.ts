import { KIND_NAMES, KINDS } from "../sdk/schema";
import { customResourceDefinition } from "../sdk/schema/crd";
import { SECRETS_NAMESPACE } from "./admission/secrets";
import type { KubeClient } from "./client";
import { printerColumns } from "./crds";

/**
 * What a cluster needs before it serves the three kinds as this project's API: the CRDs, the admission
 * webhook's identity and permissions, and the webhook configurations. Every step is a server-side apply,
 * so installing twice changes nothing.
 */

const RBAC = "/apis/rbac.authorization.k8s.io/v1";
const ADMISSION = "admission-webhook";
const POLL_MS = 100;
const WAIT_MS = 60_000;

export async function installCrds(admin: KubeClient): Promise<void> {
  const names = KIND_NAMES.map((kind) => `${KINDS[kind].plural}.${KINDS[kind].group}`);
  const path = (name: string) => `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`;
  for (const [index, kind] of KIND_NAMES.entries())
    await admin.apply(path(names[index] as string), customResourceDefinition(kind, printerColumns(kind)));
  await until("the CRDs to be Established", async () => {
    for (const name of names) {
      const crd = await admin.ok<{ status?: { conditions?: { type: string; status: string }[] } }>(
        "GET",
        path(name),
      );
      const established = crd.status?.conditions?.some(
        ({ type, status }) => type === "Established" && status === "True",
      );
      if (!established) return false;
    }
    return true;
  });
}

/**
 * The webhook's service account (in the namespace that keeps the Secrets), allowed to read the three kinds
 * and to write Secrets in that namespace only; returns a token for it (TokenRequest, as a pod would get).
 */
export async function installAdmissionIdentity(admin: KubeClient): Promise<string> {
  const name = `exampledev-${ADMISSION}`;
  const subject = { kind: "ServiceAccount", name, namespace: SECRETS_NAMESPACE };
  await admin.apply(`/api/v1/namespaces/${SECRETS_NAMESPACE}`, {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: SECRETS_NAMESPACE },
  });
  const namespaced = `/api/v1/namespaces/${SECRETS_NAMESPACE}`;
  await admin.apply(`${namespaced}/serviceaccounts/${name}`, {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name, namespace: SECRETS_NAMESPACE },
  });
  await admin.apply(`${RBAC}/clusterroles/${name}`, {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name },
    rules: [
      {
        apiGroups: [...new Set(KIND_NAMES.map((kind) => KINDS[kind].group))],
        resources: KIND_NAMES.map((kind) => KINDS[kind].plural),
        verbs: ["get", "list", "watch"],
      },
    ],
  });
  await admin.apply(`${RBAC}/clusterrolebindings/${name}`, {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
    subjects: [subject],
  });
  await admin.apply(`${RBAC}/namespaces/${SECRETS_NAMESPACE}/roles/${name}`, {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "Role",
    metadata: { name, namespace: SECRETS_NAMESPACE },
    rules: [
      {
        apiGroups: [""],
        resources: ["secrets"],
        verbs: ["create", "get", "list", "watch", "patch", "delete"],
      },
    ],
  });
  await admin.apply(`${RBAC}/namespaces/${SECRETS_NAMESPACE}/rolebindings/${name}`, {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: { name, namespace: SECRETS_NAMESPACE },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
    subjects: [subject],
  });
  const request = await admin.ok<{ status: { token: string } }>(
    "POST",
    `${namespaced}/serviceaccounts/${name}/token`,
    {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: { expirationSeconds: 7 * 24 * 3600 },
    },
  );
  return request.status.token;
}

/**
 * The mutating and validating webhook configurations, calling `url` (verified against `caCert`) for every
 * create and update of the three kinds; a webhook that does not answer fails the write (failurePolicy Fail).
 * Returns once kube-apiserver calls both (it loads configurations asynchronously).
 */
export async function installWebhooks(admin: KubeClient, url: string, caCert: string): Promise<void> {
  const webhook = (name: string, path: string, sideEffects: string) => ({
    name: `${name}.exampledev.example.dev`,
    clientConfig: { url: `${url}${path}`, caBundle: Buffer.from(caCert).toString("base64") },
    rules: [
      {
        apiGroups: [...new Set(KIND_NAMES.map((kind) => KINDS[kind].group))],
        apiVersions: [...new Set(KIND_NAMES.map((kind) => KINDS[kind].version))],
        operations: ["CREATE", "UPDATE"],
        resources: KIND_NAMES.map((kind) => KINDS[kind].plural),
        scope: "Cluster",
      },
    ],
    admissionReviewVersions: ["v1"],
    sideEffects,
    failurePolicy: "Fail",
    timeoutSeconds: 10,
  });
  const registration = "/apis/admissionregistration.k8s.io/v1";
  const name = `exampledev-${ADMISSION}`;
  // Minting a Secret is the mutating webhook's side effect; it mints none on a dry run.
  await admin.apply(`${registration}/mutatingwebhookconfigurations/${name}`, {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingWebhookConfiguration",
    metadata: { name },
    webhooks: [{ ...webhook("mutate", "/mutate", "NoneOnDryRun"), reinvocationPolicy: "Never" }],
  });
  await admin.apply(`${registration}/validatingwebhookconfigurations/${name}`, {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name },
    webhooks: [webhook("validate", "/validate", "None")],
  });
  await until("kube-apiserver to call the webhooks", () => webhooksCalled(admin));
}

/**
 * A dry-run create that each webhook changes: the mutating one puts the placeholder in place of the key,
 * the validating one refuses the drain time (a rule the CRD's CEL does not say).
 */
async function webhooksCalled(admin: KubeClient): Promise<boolean> {
  const { apiVersion, plural } = KINDS.Proxy;
  const probe = (spec: unknown) =>
    admin.call("POST", `/apis/${apiVersion}/${plural}?dryRun=All`, {
      apiVersion,
      kind: "Proxy",
      metadata: { name: "exampledev-webhook-probe" },
      spec,
    });
  const mutated = await probe({ telemetry: { thirdPartySinks: { vendorAlphaLogs: { key: "probe" } } } });
  const key = (
    mutated.body as { spec?: { telemetry?: { thirdPartySinks?: { vendorAlphaLogs?: { key?: string } } } } }
  ).spec?.telemetry?.thirdPartySinks?.vendorAlphaLogs?.key;
  if (mutated.status !== 201 || key === "probe") return false;
  const refused = await probe({ shutdown: { drainTimeout: "60s", minimumDrainTime: "10s" } });
  return refused.status === 422;
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${WAIT_MS / 1000}s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
