import { DEFAULT_LEASE_NAME } from "../controller/leader-election";
import { KIND_NAMES, KINDS, SECRETS_NAMESPACE } from "../sdk/schema";

/**
 * The objects a cluster needs for the project's two identities, the admission webhook and the controller:
 * their namespace, service accounts, roles and bindings, and the webhook configuration. One source for
 * both `kube/install.ts` (which applies them to `npm run kube`'s cluster and the tests') and the manifests
 * `npm run generate` writes into `deploy/` (deploy/manifests.ts).
 */

/** A Kubernetes object as written: enough to name where it is applied. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
}

const RBAC = "rbac.authorization.k8s.io";
const SERVICE = KINDS.Service;
const REVISION = KINDS.ServiceRevision;
const PROXY = KINDS.Proxy;

export const NAMESPACE: Manifest = {
  apiVersion: "v1",
  kind: "Namespace",
  metadata: { name: SECRETS_NAMESPACE },
};

/**
 * The webhook's own namespace: its service account, pods, Service, serving certificate (the Secret with its
 * TLS key) and cert-manager's CA for it. Apart from SECRETS_NAMESPACE, where the Secrets of secret values
 * are, so that neither identity, which may read Secrets there, can read the TLS or CA keys.
 */
export const ADMISSION_NAMESPACE_NAME = "exampledev-admission";
export const ADMISSION_NAMESPACE: Manifest = {
  apiVersion: "v1",
  kind: "Namespace",
  metadata: { name: ADMISSION_NAMESPACE_NAME },
};

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

/**
 * A service account in its own `namespace`, with cluster-wide rules and rules in SECRETS_NAMESPACE only
 * (the Secrets of secret values; the controller's Lease).
 */
export interface Identity {
  name: string;
  namespace: string;
  clusterRules: Rule[];
  namespaceRules: Rule[];
}

/** The webhook reads the three kinds and keeps the Secrets that hold their secret values. */
/**
 * Who may read a component's `/metrics` is asked of kube-apiserver, as Kubernetes' own components ask
 * (system:auth-delegator's rules): a TokenReview and a SubjectAccessReview per caller (sdk/client/reviews.ts).
 */
const DELEGATED_AUTH_RULES: Rule[] = [
  { apiGroups: ["authentication.k8s.io"], resources: ["tokenreviews"], verbs: ["create"] },
  { apiGroups: ["authorization.k8s.io"], resources: ["subjectaccessreviews"], verbs: ["create"] },
];

export const ADMISSION_IDENTITY: Identity = {
  name: "exampledev-admission-webhook",
  namespace: ADMISSION_NAMESPACE_NAME,
  // One rule per kind: a rule's groups and resources combine, and two groups times three plurals would
  // name kinds that do not exist (proxies.compute.example.dev).
  clusterRules: [
    ...KIND_NAMES.map((kind) => ({
      apiGroups: [KINDS[kind].group],
      resources: [KINDS[kind].plural],
      verbs: ["get", "list", "watch"],
    })),
    ...DELEGATED_AUTH_RULES,
  ],
  namespaceRules: [
    { apiGroups: [""], resources: ["secrets"], verbs: ["create", "get", "list", "watch", "patch", "delete"] },
  ],
};

/**
 * The controller: exactly the calls it makes. It lists and watches Services, ServiceRevisions and Proxies
 * (its informers), patches a Proxy's finalizers (the drain), mints and prunes revisions, creates, replaces and deletes preview
 * Services (git sources), writes Service and Proxy status, records Events, reads the Secret an object names,
 * and takes and renews its Lease (any name may be created; only its own may be read and written).
 */
export const CONTROLLER_IDENTITY: Identity = {
  name: "exampledev-controller",
  namespace: SECRETS_NAMESPACE,
  clusterRules: [
    {
      apiGroups: [SERVICE.group],
      resources: [SERVICE.plural],
      verbs: ["get", "list", "watch", "create", "update", "delete"],
    },
    { apiGroups: [SERVICE.group], resources: [`${SERVICE.plural}/status`], verbs: ["update"] },
    {
      apiGroups: [REVISION.group],
      resources: [REVISION.plural],
      verbs: ["get", "list", "watch", "create", "delete"],
    },
    { apiGroups: [PROXY.group], resources: [PROXY.plural], verbs: ["list", "watch", "patch"] },
    // The Proxy's readiness conditions (controller/drain.ts).
    { apiGroups: [PROXY.group], resources: [`${PROXY.plural}/status`], verbs: ["patch"] },
    // Events about the objects (controller/recorder.ts): a cluster-scoped object's go to `default`, as
    // client-go's recorder puts them; a series is patched.
    { apiGroups: ["events.k8s.io"], resources: ["events"], verbs: ["create", "patch"] },
    ...DELEGATED_AUTH_RULES,
  ],
  namespaceRules: [
    { apiGroups: [""], resources: ["secrets"], verbs: ["get"] },
    // A create names no object until it is made, so it cannot be limited to one name.
    { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
    {
      apiGroups: ["coordination.k8s.io"],
      resources: ["leases"],
      verbs: ["get", "update"],
      resourceNames: [DEFAULT_LEASE_NAME],
    },
  ],
};

/**
 * RBAC cannot name fields: `patch proxies` would let the controller change anything of a Proxy. This
 * ValidatingAdmissionPolicy (CEL in kube-apiserver, after the mutating webhook) lets the controller's updates
 * and patches of a Proxy change its finalizers only, which is all the drain does (its spec, labels,
 * annotations and owner references stay as stored).
 */
export function controllerProxyPolicy(): Manifest[] {
  const name = `${CONTROLLER_IDENTITY.name}-proxy-finalizers-only`;
  const user = `system:serviceaccount:${CONTROLLER_IDENTITY.namespace}:${CONTROLLER_IDENTITY.name}`;
  const same = (field: string) =>
    `object.metadata.?${field}.orValue([]) == oldObject.metadata.?${field}.orValue([])`;
  const sameMap = (field: string) =>
    `object.metadata.?${field}.orValue({}) == oldObject.metadata.?${field}.orValue({})`;
  return [
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: [PROXY.group],
              apiVersions: ["*"],
              operations: ["UPDATE"],
              resources: [PROXY.plural],
            },
          ],
        },
        matchConditions: [{ name: "the-controller", expression: `request.userInfo.username == '${user}'` }],
        validations: [
          {
            expression: "object.spec == oldObject.spec",
            message: "the controller may change a Proxy's finalizers only, not its spec",
          },
          {
            expression: `${sameMap("labels")} && ${sameMap("annotations")}`,
            message: "the controller may change a Proxy's finalizers only, not its labels or annotations",
          },
          {
            expression: same("ownerReferences"),
            message: "the controller may change a Proxy's finalizers only, not its owner references",
          },
        ],
      },
    },
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name },
      spec: { policyName: name, validationActions: ["Deny"] },
    },
  ];
}

/** The service account, its ClusterRole and Role, and their bindings. */
export function identityManifests(identity: Identity): Manifest[] {
  const { name } = identity;
  const namespace = SECRETS_NAMESPACE;
  const subjects = [{ kind: "ServiceAccount", name, namespace: identity.namespace }];
  const binding = (kind: "ClusterRole" | "Role") => ({
    roleRef: { apiGroup: RBAC, kind, name },
    subjects,
  });
  return [
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace: identity.namespace } },
    { apiVersion: `${RBAC}/v1`, kind: "ClusterRole", metadata: { name }, rules: identity.clusterRules },
    { apiVersion: `${RBAC}/v1`, kind: "ClusterRoleBinding", metadata: { name }, ...binding("ClusterRole") },
    { apiVersion: `${RBAC}/v1`, kind: "Role", metadata: { name, namespace }, rules: identity.namespaceRules },
    { apiVersion: `${RBAC}/v1`, kind: "RoleBinding", metadata: { name, namespace }, ...binding("Role") },
  ];
}

/** The webhook's name: kube-apiserver's refusals start `admission webhook "<name>" denied the request: `. */
export const ADMISSION_WEBHOOK = "admit.exampledev.example.dev";

/** Where kube-apiserver calls the webhook: a URL (on loopback, for tests) or an in-cluster Service. */
export type WebhookClientConfig =
  | { url: string; caBundle: string }
  | { service: { namespace: string; name: string; path: string; port: number }; caBundle?: string };

/**
 * The webhook configuration: every create and update of the three kinds goes through the webhook; one
 * that does not answer fails the write (failurePolicy Fail), as the local server never stores what it has
 * not admitted.
 */
export function webhookConfiguration(clientConfig: WebhookClientConfig): Manifest {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingWebhookConfiguration",
    metadata: { name: ADMISSION_IDENTITY.name },
    webhooks: [
      {
        name: ADMISSION_WEBHOOK,
        clientConfig,
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
  };
}

/** The REST path of an object these manifests hold, for a server-side apply. */
export function pathOf(object: Manifest): string {
  const [group, version] = object.apiVersion.includes("/")
    ? object.apiVersion.split("/")
    : ["", object.apiVersion];
  const plural = PLURALS[object.kind];
  if (plural === undefined) throw new TypeError(`deploy/identities.ts knows no path for a ${object.kind}`);
  const base = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
  const { name, namespace } = object.metadata;
  return `${base}${namespace === undefined ? "" : `/namespaces/${namespace}`}/${plural}/${name}`;
}

const PLURALS: Readonly<Record<string, string>> = {
  Namespace: "namespaces",
  ServiceAccount: "serviceaccounts",
  ClusterRole: "clusterroles",
  ClusterRoleBinding: "clusterrolebindings",
  Role: "roles",
  RoleBinding: "rolebindings",
  MutatingWebhookConfiguration: "mutatingwebhookconfigurations",
  ValidatingAdmissionPolicy: "validatingadmissionpolicies",
  ValidatingAdmissionPolicyBinding: "validatingadmissionpolicybindings",
};
