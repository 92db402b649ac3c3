import { monitoringObjects, PROMETHEUS_SERVICE_ACCOUNT } from "./monitoring";
import { readFileSync } from "node:fs";
import path from "node:path";
import { stringify } from "yaml";
import { WEBHOOK_SECRET_ENV } from "../controller/flags";
import { DEFAULT_HEALTH } from "../controller/health";
import { GIT_HOOK_PATH } from "../controller/hooks/handler";
import { DEFAULT_LEASE_NAME } from "../controller/leader-election";
import { generatedHeader } from "../scripts/lib/generated-header";
import { KIND_NAMES, SECRETS_NAMESPACE } from "../sdk/schema";
import { customResourceDefinition } from "../sdk/schema/crd";
import { printerColumns } from "./crds";
import {
  ADMISSION_IDENTITY,
  ADMISSION_NAMESPACE,
  ADMISSION_NAMESPACE_NAME,
  CONTROLLER_IDENTITY,
  controllerProxyPolicy,
  identityManifests,
  type Manifest,
  NAMESPACE,
  webhookConfiguration,
} from "./identities";

/**
 * The manifests that install the project on a cluster (`kubectl apply -f deploy/`), written by
 * `npm run generate`: the namespace, the CRDs, the admission webhook's identity, Deployment, Service and
 * configuration, the controller's identity and Deployment, and (in deploy/optional/, applied on its own) the
 * cert-manager objects that make the webhook's serving certificate. The identities are the objects kube/install.ts applies to
 * `npm run kube`'s cluster; the files are numbered so that kubectl applies the namespace first.
 */

const REPO = path.resolve(__dirname, "..").replace(/[/\\]dist$/, "");

export const DEPLOY_SOURCE = "deploy/manifests.ts (with deploy/identities.ts and the zod schema)";

/** The in-cluster Service kube-apiserver calls the webhook through. */
const WEBHOOK_SERVICE = {
  namespace: ADMISSION_NAMESPACE_NAME,
  name: ADMISSION_IDENTITY.name,
  path: "/admit",
  port: 443,
};

const labels = (name: string) => ({
  "app.kubernetes.io/name": name,
  "app.kubernetes.io/part-of": "exampledev",
});
const LABELS = labels(CONTROLLER_IDENTITY.name);
const WEBHOOK_LABELS = labels(ADMISSION_IDENTITY.name);

/** The Secret holding the webhook's serving certificate (`tls.crt`, `tls.key`, as cert-manager writes it). */
export const WEBHOOK_TLS_SECRET = `${ADMISSION_IDENTITY.name}-tls`;
/** The container port the webhook listens on (unprivileged); the Service maps 443 to it. */
const WEBHOOK_PORT = 8443;
const TLS_DIR = "/etc/exampledev/tls";
/**
 * The ConfigMap holding the CA (`ca.crt`) that signed the client certificate kube-apiserver presents to
 * webhooks (its AdmissionConfiguration's kubeconfig): when it exists at the pods' start, /admit answers that
 * certificate only (CN WEBHOOK_CLIENT_USER), anyone else 401. Optional: without it, any caller.
 */
export const WEBHOOK_CLIENT_CA_CONFIGMAP = `${ADMISSION_IDENTITY.name}-client-ca`;
const CLIENT_CA_DIR = "/etc/exampledev/client-ca";

/**
 * The Secret whose key `secret` signs git push deliveries to the controller (`POST /hooks/git`). Optional:
 * without it the controller takes none, and git sources are polled only.
 */
export const GIT_WEBHOOK_SECRET = `${CONTROLLER_IDENTITY.name}-git-webhook`;

const SECURITY_CONTEXT = { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } };

/**
 * The kubelet's probes on a named port: liveness restarts a process that missed three probes 10 s apart,
 * readiness takes a pod out of its Service after three misses 5 s apart.
 */
function probes(port: string, scheme: "HTTP" | "HTTPS") {
  const get = (path: string) => ({ httpGet: { path, port, scheme }, failureThreshold: 3 });
  return {
    livenessProbe: { ...get("/healthz"), periodSeconds: 10 },
    readinessProbe: { ...get("/readyz"), periodSeconds: 5 },
  };
}

/** No image is published: build one holding the package (its dist/) and a Node 22+, and name it here. */
function packageImage(): string {
  const { version } = JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as {
    version: string;
  };
  return `exampledev/pulumi:${version}`;
}

function controllerDeployment(): Manifest {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: CONTROLLER_IDENTITY.name, namespace: SECRETS_NAMESPACE, labels: LABELS },
    spec: {
      // One leads (the Lease); the other takes over within about 15 s if it goes.
      replicas: 2,
      selector: { matchLabels: LABELS },
      template: {
        metadata: { labels: LABELS },
        spec: {
          serviceAccountName: CONTROLLER_IDENTITY.name,
          containers: [
            {
              name: "controller",
              image: packageImage(),
              // In a pod it connects as its service account; losing the lease exits 1 and the kubelet restarts it.
              command: ["node", "dist/controller/main.js", `--health-port=${DEFAULT_HEALTH.port}`],
              ports: [{ name: "health", containerPort: DEFAULT_HEALTH.port }],
              // With the Secret, git push deliveries are taken beside the probes (a missing Secret leaves
              // the variable unset: no deliveries, and the pod still starts).
              env: [
                {
                  name: WEBHOOK_SECRET_ENV,
                  valueFrom: { secretKeyRef: { name: GIT_WEBHOOK_SECRET, key: "secret", optional: true } },
                },
              ],
              // Ready: a standby waiting for the Lease, or the leader once its caches are synced.
              ...probes("health", "HTTP"),
              resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "512Mi" } },
              securityContext: SECURITY_CONTEXT,
            },
          ],
        },
      },
    },
  };
}

/**
 * The Service git hosts' deliveries reach the controller through (`POST /hooks/git` on port 80), for an
 * Ingress to expose. It selects both replicas: the leader acts, a standby answers 503 with Retry-After.
 */
function controllerHookService(): Manifest {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: CONTROLLER_IDENTITY.name, namespace: SECRETS_NAMESPACE, labels: LABELS },
    spec: { selector: LABELS, ports: [{ name: "http", port: 80, targetPort: "health" }] },
  };
}

/**
 * The webhook: two replicas (every write of the three kinds waits on one, failurePolicy Fail), spread over
 * nodes when the scheduler can, at most one of them disrupted at a time, each serving the certificate in
 * WEBHOOK_TLS_SECRET (re-read when the Secret is renewed).
 */
function webhookObjects(): Manifest[] {
  const { name } = ADMISSION_IDENTITY;
  const namespace = ADMISSION_NAMESPACE_NAME;
  const deployment: Manifest = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace, labels: WEBHOOK_LABELS },
    spec: {
      replicas: 2,
      selector: { matchLabels: WEBHOOK_LABELS },
      template: {
        metadata: { labels: WEBHOOK_LABELS },
        spec: {
          serviceAccountName: name,
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: "kubernetes.io/hostname",
              whenUnsatisfiable: "ScheduleAnyway",
              labelSelector: { matchLabels: WEBHOOK_LABELS },
            },
          ],
          containers: [
            {
              name: "webhook",
              image: packageImage(),
              command: [
                ...["node", "dist/webhook/main.js", `--port=${WEBHOOK_PORT}`],
                ...[`--tls-cert=${TLS_DIR}/tls.crt`, `--tls-key=${TLS_DIR}/tls.key`],
                ...[`--client-ca=${CLIENT_CA_DIR}/ca.crt`, "--client-ca-optional"],
              ],
              ports: [{ name: "https", containerPort: WEBHOOK_PORT }],
              ...probes("https", "HTTPS"),
              volumeMounts: [
                { name: "tls", mountPath: TLS_DIR, readOnly: true },
                { name: "client-ca", mountPath: CLIENT_CA_DIR, readOnly: true },
              ],
              resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "512Mi" } },
              securityContext: SECURITY_CONTEXT,
            },
          ],
          volumes: [
            { name: "tls", secret: { secretName: WEBHOOK_TLS_SECRET } },
            { name: "client-ca", configMap: { name: WEBHOOK_CLIENT_CA_CONFIGMAP, optional: true } },
          ],
        },
      },
    },
  };
  const service: Manifest = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: WEBHOOK_SERVICE.name, namespace, labels: WEBHOOK_LABELS },
    spec: {
      selector: WEBHOOK_LABELS,
      ports: [{ name: "https", port: WEBHOOK_SERVICE.port, targetPort: "https" }],
    },
  };
  const disruptionBudget: Manifest = {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: { name, namespace, labels: WEBHOOK_LABELS },
    spec: { maxUnavailable: 1, selector: { matchLabels: WEBHOOK_LABELS } },
  };
  return [deployment, service, disruptionBudget];
}

/** The configuration calling the Service; cert-manager's CA injector fills caBundle when it runs. */
function deployedWebhookConfiguration(): Manifest {
  const configuration = webhookConfiguration({ service: WEBHOOK_SERVICE });
  configuration.metadata.annotations = {
    "cert-manager.io/inject-ca-from": `${ADMISSION_NAMESPACE_NAME}/${WEBHOOK_CERTIFICATE}`,
  };
  return configuration;
}

/** cert-manager's Certificate for the webhook (deploy/optional/cert-manager.yaml). */
const WEBHOOK_CERTIFICATE = ADMISSION_IDENTITY.name;
const CERT_MANAGER = "cert-manager.io/v1";

/**
 * A CA of the project's own, made by cert-manager, and the webhook's serving certificate signed by it: the
 * serving certificate renews (every 60 days of its 90) without changing the caBundle kube-apiserver trusts,
 * which changes only when the CA does (every 5 years).
 */
function certManagerObjects(): Manifest[] {
  const namespace = ADMISSION_NAMESPACE_NAME;
  const caName = "exampledev-admission-ca";
  const issuer = (name: string, spec: Record<string, unknown>): Manifest => ({
    apiVersion: CERT_MANAGER,
    kind: "Issuer",
    metadata: { name, namespace },
    spec,
  });
  const certificate = (name: string, spec: Record<string, unknown>): Manifest => ({
    apiVersion: CERT_MANAGER,
    kind: "Certificate",
    metadata: { name, namespace },
    spec: { ...spec, privateKey: { algorithm: "ECDSA", size: 256, rotationPolicy: "Always" } },
  });
  const { name, namespace: serviceNamespace } = WEBHOOK_SERVICE;
  return [
    issuer("exampledev-selfsigned", { selfSigned: {} }),
    certificate(caName, {
      isCA: true,
      commonName: caName,
      secretName: caName,
      duration: "43800h",
      issuerRef: { kind: "Issuer", name: "exampledev-selfsigned" },
    }),
    issuer(caName, { ca: { secretName: caName } }),
    certificate(WEBHOOK_CERTIFICATE, {
      secretName: WEBHOOK_TLS_SECRET,
      dnsNames: [`${name}.${serviceNamespace}.svc`, `${name}.${serviceNamespace}.svc.cluster.local`],
      usages: ["digital signature", "server auth"],
      duration: "2160h",
      renewBefore: "720h",
      issuerRef: { kind: "Issuer", name: caName },
    }),
  ];
}

/**
 * Only the API server may reach the webhook's port: ingress to the webhook pods from the address range
 * kube-apiserver connects from, nothing else (no pod of the cluster). The range is the cluster's own: this
 * file carries a documentation range (RFC 5737) to replace, so that applying it unedited blocks every caller
 * rather than admits them all.
 */
export const CONTROL_PLANE_CIDR_PLACEHOLDER = "192.0.2.0/24";
function webhookNetworkPolicy(): Manifest {
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name: ADMISSION_IDENTITY.name, namespace: ADMISSION_NAMESPACE_NAME, labels: WEBHOOK_LABELS },
    spec: {
      podSelector: { matchLabels: WEBHOOK_LABELS },
      policyTypes: ["Ingress"],
      ingress: [
        {
          from: [{ ipBlock: { cidr: CONTROL_PLANE_CIDR_PLACEHOLDER } }],
          ports: [{ protocol: "TCP", port: WEBHOOK_PORT }],
        },
      ],
    },
  };
}

/** Files here are not applied by `kubectl apply -f deploy/` (which does not recurse): each is a choice. */
export const OPTIONAL_DIR = "deploy/optional/";

interface DeployFile {
  path: string;
  /** What the file holds and needs, after the generated header. */
  comment: string[];
  objects: () => Manifest[];
}

export const DEPLOY_FILES: readonly DeployFile[] = [
  {
    path: "deploy/00-namespace.yaml",
    comment: [
      `${SECRETS_NAMESPACE}: the controller, its Lease and the Secrets of secret values; ${ADMISSION_NAMESPACE_NAME}: the webhook and its keys.`,
    ],
    objects: () => [NAMESPACE, ADMISSION_NAMESPACE],
  },
  {
    path: "deploy/10-crds.yaml",
    comment: ["The three kinds (the same CRDs as deploy/crds/)."],
    objects: () => KIND_NAMES.map((kind) => customResourceDefinition(kind, printerColumns(kind)) as Manifest),
  },
  {
    path: "deploy/20-admission.yaml",
    comment: [
      `The admission webhook: its identity, its Deployment and the Service ${WEBHOOK_SERVICE.namespace}/${WEBHOOK_SERVICE.name} (port ${WEBHOOK_SERVICE.port}),`,
      `and its configuration, which kube-apiserver follows (${WEBHOOK_SERVICE.path}) verifying the serving certificate against caBundle.`,
      `The pods need the Secret ${WEBHOOK_TLS_SECRET} (tls.crt, tls.key) and caBundle the CA that signed it: with cert-manager,`,
      "apply deploy/optional/cert-manager.yaml, which makes both (the annotation below); without it, see docs/kubernetes.md.",
      "Until the webhook answers, writes of the three kinds are refused. Set the image to one holding @exampledev/pulumi-server.",
    ],
    objects: () => [
      ...identityManifests(ADMISSION_IDENTITY),
      ...webhookObjects(),
      deployedWebhookConfiguration(),
    ],
  },
  {
    path: "deploy/30-controller.yaml",
    comment: [
      "The controller's identity (least privilege: docs/kubernetes.md) and its Deployment: two replicas electing",
      `one leader through the Lease ${SECRETS_NAMESPACE}/${DEFAULT_LEASE_NAME}, probed on /healthz and /readyz (port ${DEFAULT_HEALTH.port}; a standby`,
      `is ready), and the Service ${SECRETS_NAMESPACE}/${CONTROLLER_IDENTITY.name} (80 → ${DEFAULT_HEALTH.port}) taking git push deliveries on ${GIT_HOOK_PATH}`,
      `once the Secret ${GIT_WEBHOOK_SECRET} (key secret) holds the webhook secret. Set the image to one holding @exampledev/pulumi-server.`,
    ],
    objects: () => [
      ...identityManifests(CONTROLLER_IDENTITY),
      ...controllerProxyPolicy(),
      controllerDeployment(),
      controllerHookService(),
    ],
  },
  {
    path: `${OPTIONAL_DIR}cert-manager.yaml`,
    comment: [
      `For clusters running cert-manager (1.0 or later): \`kubectl apply -f ${OPTIONAL_DIR}cert-manager.yaml\` after deploy/.`,
      `A CA of the webhook's own (${ADMISSION_NAMESPACE_NAME}/exampledev-admission-ca) and the serving certificate it signs into the Secret`,
      `${WEBHOOK_TLS_SECRET}; cert-manager renews it, the webhook serves the renewed one, and cert-manager's CA injector`,
      "keeps the webhook configuration's caBundle (its cert-manager.io/inject-ca-from annotation) set to the CA.",
    ],
    objects: certManagerObjects,
  },
  {
    path: `${OPTIONAL_DIR}monitoring.yaml`,
    comment: [
      `For clusters running the Prometheus Operator: \`kubectl apply -f ${OPTIONAL_DIR}monitoring.yaml\` after deploy/. ServiceMonitors of the`,
      "controller and the webhook (/metrics, which answers callers kube-apiserver allows to get /metrics), that permission",
      `for Prometheus' service account (${PROMETHEUS_SERVICE_ACCOUNT.namespace}/${PROMETHEUS_SERVICE_ACCOUNT.name}: change it to yours) and the alerts. See docs/operating.md.`,
    ],
    objects: () => monitoringObjects(ADMISSION_NAMESPACE_NAME),
  },
  {
    path: `${OPTIONAL_DIR}network-policy.yaml`,
    comment: [
      `Only kube-apiserver may reach the webhook: replace ${CONTROL_PLANE_CIDR_PLACEHOLDER} (a documentation range, which admits no one) by the`,
      "addresses your API server connects to pods from (the control plane's range), then apply it; the kubelet's probes come",
      "from the node, which CNIs admit whatever the policy. Needs a CNI that enforces NetworkPolicy. See docs/kubernetes.md.",
    ],
    objects: () => [webhookNetworkPolicy()],
  },
];

export function deployYaml(file: DeployFile): string {
  const comments = [generatedHeader(DEPLOY_SOURCE), ...file.comment].map((line) => `# ${line}\n`).join("");
  const documents = file
    .objects()
    .map((object) => stringify(object, { lineWidth: 0, aliasDuplicateObjects: false }));
  return comments + documents.join("---\n");
}
