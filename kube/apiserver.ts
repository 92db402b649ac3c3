import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { stringify } from "yaml";
import { type CertFiles, exists, type Pki } from "./pki";
import { type Supervised, supervise } from "./processes";

/**
 * kube-apiserver for the environment (kube/env.ts): one, or several on the same etcd behind a load balancer
 * (kube/balancer.ts), each a process of its own with the same keys, tokens and configuration files, as the
 * API servers of a production control plane share theirs.
 */

export interface ApiserverFiles {
  pki: Pki;
  tokenFile: string;
  encryptionConfig: string;
  admissionConfig: string;
}

export interface Apiserver extends Supervised {
  url: string;
}

/** The files every kube-apiserver of the environment reads, made once per directory. */
export async function writeApiserverFiles(dir: string, pki: Pki, tokenFile: string): Promise<ApiserverFiles> {
  return {
    pki,
    tokenFile,
    encryptionConfig: await writeEncryptionConfig(dir),
    admissionConfig: await writeAdmissionConfig(dir, pki.webhookClient),
  };
}

export function startApiserver(options: {
  binary: string;
  dir: string;
  index: number;
  count: number;
  port: number;
  etcdUrls: string[];
  files: ApiserverFiles;
}): Apiserver {
  const { dir, files, port } = options;
  const { pki } = files;
  // One server keeps the log it always had; several are kube-apiserver-<i>.
  const name = options.count === 1 ? "kube-apiserver" : `kube-apiserver-${options.index}`;
  const args = [
    `--etcd-servers=${options.etcdUrls.join(",")}`,
    "--bind-address=127.0.0.1",
    // Else it derives the address from the default route, and a machine (or network namespace) without
    // one cannot start it.
    "--advertise-address=127.0.0.1",
    `--secure-port=${port}`,
    `--cert-dir=${dir}`,
    `--tls-cert-file=${pki.serverCertFile}`,
    `--tls-private-key-file=${pki.serverKeyFile}`,
    `--token-auth-file=${files.tokenFile}`,
    // Client certificates the environment's CA signed authenticate as their CN (user) and O (groups).
    `--client-ca-file=${pki.caFile}`,
    "--authorization-mode=RBAC",
    `--service-account-key-file=${pki.serviceAccountPublicFile}`,
    `--service-account-signing-key-file=${pki.serviceAccountKeyFile}`,
    "--service-account-issuer=https://kubernetes.default.svc",
    "--service-cluster-ip-range=10.96.0.0/24",
    // Its reconciler refuses a loopback address for the `kubernetes` Service's endpoints.
    "--endpoint-reconciler-type=none",
    `--encryption-provider-config=${files.encryptionConfig}`,
    `--admission-control-config-file=${files.admissionConfig}`,
  ];
  const server = supervise(name, options.binary, args, path.join(dir, `${name}.log`));
  return Object.assign(server, { url: `https://127.0.0.1:${port}` });
}

/**
 * kube-apiserver authenticates to admission webhooks with the client certificate WEBHOOK_CLIENT_USER (the
 * admission configuration's kubeconfig, whose user `*` matches every webhook), and the webhook answers no
 * other caller: without it, anyone who reaches the webhook could have it mint Secrets.
 */
async function writeAdmissionConfig(dir: string, client: CertFiles): Promise<string> {
  const kubeconfig = path.join(dir, "webhook-client.kubeconfig");
  const user = { "client-certificate": client.certFile, "client-key": client.keyFile };
  await writeFile(kubeconfig, stringify({ apiVersion: "v1", kind: "Config", users: [{ name: "*", user }] }), {
    mode: 0o600,
  });
  const configuration = {
    apiVersion: "apiserver.config.k8s.io/v1",
    kind: "WebhookAdmissionConfiguration",
    kubeConfigFile: kubeconfig,
  };
  const file = path.join(dir, "admission.yaml");
  const config = {
    apiVersion: "apiserver.config.k8s.io/v1",
    kind: "AdmissionConfiguration",
    plugins: ["MutatingAdmissionWebhook", "ValidatingAdmissionWebhook"].map((name) => ({
      name,
      configuration,
    })),
  };
  await writeFile(file, stringify(config), { mode: 0o600 });
  return file;
}

/**
 * Secrets are encrypted at rest (secretbox, a key made for this environment), so a value the admission
 * webhook moved into a Secret is in neither an answer nor etcd's files. The three kinds are not: after
 * admission they hold placeholders only, and a test reading etcd's files proves it.
 */
async function writeEncryptionConfig(dir: string): Promise<string> {
  const file = path.join(dir, "encryption.yaml");
  // A kept directory's Secrets are encrypted with its key: a new one would make them unreadable.
  if (await exists(file)) return file;
  const config = {
    apiVersion: "apiserver.config.k8s.io/v1",
    kind: "EncryptionConfiguration",
    resources: [
      {
        resources: ["secrets"],
        providers: [
          { secretbox: { keys: [{ name: "key1", secret: randomBytes(32).toString("base64") }] } },
          { identity: {} },
        ],
      },
    ],
  };
  await writeFile(file, stringify(config), { mode: 0o600 });
  return file;
}
