import { readFileSync } from "node:fs";
import path from "node:path";
import { stringify } from "yaml";
import { DEFAULT_LEASE_NAME } from "../controller/leader-election";
import { generatedHeader } from "../scripts/lib/generated-header";
import { KIND_NAMES, SECRETS_NAMESPACE } from "../sdk/schema";
import { customResourceDefinition } from "../sdk/schema/crd";
import { printerColumns } from "./crds";
import {
  ADMISSION_IDENTITY,
  CONTROLLER_IDENTITY,
  identityManifests,
  type Manifest,
  NAMESPACE,
  webhookConfiguration,
} from "./identities";

/**
 * The manifests that install the project on a cluster (`kubectl apply -f deploy/`), written by
 * `npm run generate`: the namespace, the CRDs, the admission webhook's identity and configuration, and the
 * controller's identity and Deployment. The identities are the objects kube/install.ts applies to
 * `npm run kube`'s cluster; the files are numbered so that kubectl applies the namespace first.
 */

const REPO = path.resolve(__dirname, "..").replace(/[/\\]dist$/, "");

export const DEPLOY_SOURCE = "kube/deploy.ts (with kube/identities.ts and the zod schema)";

/** The in-cluster Service kube-apiserver calls the webhook through. */
const WEBHOOK_SERVICE = {
  namespace: SECRETS_NAMESPACE,
  name: ADMISSION_IDENTITY.name,
  path: "/admit",
  port: 443,
};

const LABELS = {
  "app.kubernetes.io/name": CONTROLLER_IDENTITY.name,
  "app.kubernetes.io/part-of": "exampledev",
};

/** No image is published: build one holding the package (its dist/) and a Node 22+, and name it here. */
function controllerImage(): string {
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
              image: controllerImage(),
              // In a pod it connects as its service account; losing the lease exits 1 and the kubelet restarts it.
              command: ["node", "dist/controller/main.js"],
              resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "512Mi" } },
              securityContext: {
                allowPrivilegeEscalation: false,
                capabilities: { drop: ["ALL"] },
              },
            },
          ],
        },
      },
    },
  };
}

interface DeployFile {
  path: string;
  /** What the file holds and needs, after the generated header. */
  comment: string[];
  objects: () => Manifest[];
}

export const DEPLOY_FILES: readonly DeployFile[] = [
  { path: "deploy/00-namespace.yaml", comment: [], objects: () => [NAMESPACE] },
  {
    path: "deploy/10-crds.yaml",
    comment: ["The three kinds (the same CRDs as kube/crds/)."],
    objects: () => KIND_NAMES.map((kind) => customResourceDefinition(kind, printerColumns(kind)) as Manifest),
  },
  {
    path: "deploy/20-admission.yaml",
    comment: [
      `The admission webhook's identity, and its configuration: kube-apiserver calls the Service ${WEBHOOK_SERVICE.namespace}/${WEBHOOK_SERVICE.name}`,
      `(port ${WEBHOOK_SERVICE.port}, ${WEBHOOK_SERVICE.path}), serving kube/admission, and verifies it against caBundle: set it to the base64 of the CA`,
      "that signed the webhook's serving certificate. Until the webhook answers, writes of the three kinds are refused.",
    ],
    objects: () => [
      ...identityManifests(ADMISSION_IDENTITY),
      webhookConfiguration({ service: WEBHOOK_SERVICE }),
    ],
  },
  {
    path: "deploy/30-controller.yaml",
    comment: [
      "The controller's identity (least privilege: docs/kubernetes.md) and its Deployment: two replicas electing",
      `one leader through the Lease ${SECRETS_NAMESPACE}/${DEFAULT_LEASE_NAME}. Set the image to one holding this package.`,
    ],
    objects: () => [...identityManifests(CONTROLLER_IDENTITY), controllerDeployment()],
  },
];

export function deployYaml(file: DeployFile): string {
  const comments = [generatedHeader(DEPLOY_SOURCE), ...file.comment].map((line) => `# ${line}\n`).join("");
  const documents = file
    .objects()
    .map((object) => stringify(object, { lineWidth: 0, aliasDuplicateObjects: false }));
  return comments + documents.join("---\n");
}
