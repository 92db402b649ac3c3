import { printerColumns } from "../deploy/crds";
import {
  ADMISSION_NAMESPACE,
  CONTROLLER_IDENTITY,
  controllerProxyPolicy,
  type Identity,
  identityManifests,
  NAMESPACE,
  pathOf,
  webhookConfiguration,
} from "../deploy/identities";
import { createRawClient, type RawClient } from "../sdk/client/raw";
import { KIND_NAMES, KINDS } from "../sdk/schema";
import { customResourceDefinition } from "../sdk/schema/crd";

/**
 * What a cluster needs before it serves the three kinds as this project's API: the CRDs, the identities of
 * the admission webhook and of the controller (deploy/identities.ts), and the webhook configuration. Every
 * step is a server-side apply, so installing twice changes nothing.
 */

/** The field manager of every apply here: applying deploy/ as it replaces what this installed. */
export const INSTALL_FIELD_MANAGER = "exampledev-install";

/** The cluster admin's client that installs, named after the installer in whatever it writes. */
export function adminClient(env: { url: string; token: string; caCert: string }): RawClient {
  return createRawClient({
    baseUrl: env.url,
    token: env.token,
    ca: env.caCert,
    userAgent: INSTALL_FIELD_MANAGER,
  });
}
const POLL_MS = 100;
const WAIT_MS = 60_000;
/** The tokens live as long as a test run or a local cluster (whose certificates last a week too). */
const TOKEN_SECONDS = 7 * 24 * 3600;

export async function installCrds(admin: RawClient): Promise<void> {
  const names = KIND_NAMES.map((kind) => `${KINDS[kind].plural}.${KINDS[kind].group}`);
  const path = (name: string) => `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`;
  for (const [index, kind] of KIND_NAMES.entries())
    await admin.apply(
      path(names[index] as string),
      customResourceDefinition(kind, printerColumns(kind)),
      INSTALL_FIELD_MANAGER,
    );
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
 * An identity's service account and permissions (deploy/identities.ts), in its namespace (made if
 * missing); returns a token for it (TokenRequest, as a pod would get).
 */
export async function installIdentity(admin: RawClient, identity: Identity): Promise<string> {
  const policies = identity === CONTROLLER_IDENTITY ? controllerProxyPolicy() : [];
  for (const object of [NAMESPACE, ADMISSION_NAMESPACE, ...identityManifests(identity), ...policies])
    await admin.apply(pathOf(object), object, INSTALL_FIELD_MANAGER);
  const request = await admin.ok<{ status: { token: string } }>(
    "POST",
    `/api/v1/namespaces/${identity.namespace}/serviceaccounts/${identity.name}/token`,
    {
      apiVersion: "authentication.k8s.io/v1",
      kind: "TokenRequest",
      spec: { expirationSeconds: TOKEN_SECONDS },
    },
  );
  return request.status.token;
}

/**
 * The webhook configuration calling `url` (verified against `caCert`). Returns once kube-apiserver calls
 * it (it loads configurations asynchronously).
 */
export async function installWebhook(admin: RawClient, url: string, caCert: string): Promise<void> {
  const configuration = webhookConfiguration({
    url: `${url}/admit`,
    caBundle: Buffer.from(caCert).toString("base64"),
  });
  await admin.apply(pathOf(configuration), configuration, INSTALL_FIELD_MANAGER);
  await until("kube-apiserver to call the webhook", () => webhookCalled(admin));
}

/** A dry-run create the webhook changes (the placeholder in place of the key) and one it refuses. */
async function webhookCalled(admin: RawClient): Promise<boolean> {
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
