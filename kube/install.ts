import { KIND_NAMES, KINDS, SECRETS_NAMESPACE } from "../sdk/schema";
import { customResourceDefinition } from "../sdk/schema/crd";
import type { KubeClient } from "./client";
import { printerColumns } from "./crds";

/**
 * What a cluster needs before it serves the three kinds as this project's API: the CRDs, the admission
 * webhook's identity and permissions, and the webhook configurations. Every step is a server-side apply,
 * so installing twice changes nothing.
 */

const RBAC = "/apis/rbac.authorization.k8s.io/v1";
const ADMISSION = "admission-webhook";
/** The webhook's name: kube-apiserver's refusals start `admission webhook "<name>" denied the request: `. */
export const ADMISSION_WEBHOOK = "admit.exampledev.example.dev";
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
 * The webhook configuration, calling `url` (verified against `caCert`) for every create and update of the
 * three kinds; a webhook that does not answer fails the write (failurePolicy Fail), as the local server
 * never stores what it has not admitted. Returns once kube-apiserver calls it (it loads configurations
 * asynchronously).
 */
export async function installWebhook(admin: KubeClient, url: string, caCert: string): Promise<void> {
  const name = `exampledev-${ADMISSION}`;
  await admin.apply(`/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/${name}`, {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingWebhookConfiguration",
    metadata: { name },
    webhooks: [
      {
        name: ADMISSION_WEBHOOK,
        clientConfig: { url: `${url}/admit`, caBundle: Buffer.from(caCert).toString("base64") },
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
        // Minting a Secret is its side effect; it mints none on a dry run.
        sideEffects: "NoneOnDryRun",
        failurePolicy: "Fail",
        reinvocationPolicy: "Never",
        timeoutSeconds: 10,
      },
    ],
  });
  await until("kube-apiserver to call the webhook", () => webhookCalled(admin));
}

/** A dry-run create the webhook changes (the placeholder in place of the key) and one it refuses. */
async function webhookCalled(admin: KubeClient): Promise<boolean> {
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
  // drainTimeout beyond minimumDrainTime: a rule the CRD's CEL does not say.
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
