import { execFile } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { access, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { WEBHOOK_CLIENT_USER } from "../webhook/server";

/**
 * The key material a kube-apiserver needs, written into `dir`: a CA made for this one environment, a
 * serving certificate it signs for 127.0.0.1 (clients verify the server against the CA, as against a real
 * cluster), and the key pair that signs service-account tokens. openssl makes the certificates (node:crypto
 * makes keys, not X.509 certificates).
 */

export interface Pki {
  caCert: string;
  caFile: string;
  serverCertFile: string;
  serverKeyFile: string;
  serviceAccountPublicFile: string;
  serviceAccountKeyFile: string;
  /** kube-controller-manager's serving certificate, and its client certificate (its identity). */
  controllerManager: { serving: CertFiles; client: CertFiles };
  /**
   * The client certificate kube-apiserver presents to the admission webhook (its admission configuration's
   * kubeconfig), CN WEBHOOK_CLIENT_USER: the webhook answers no other caller.
   */
  webhookClient: CertFiles;
}

const run = promisify(execFile);

// The certificates live as long as a test run or a local cluster: a week leaves room for the second.
const DAYS = "7";
const EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", DAYS];

const extensions = (...values: string[]) => values.flatMap((value) => ["-addext", value]);

/** kube-controller-manager's user: the RBAC bootstrap policy gives it its roles. */
export const CONTROLLER_MANAGER_USER = "system:kube-controller-manager";

export const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

/** The key material in `dir`, made unless a previous start with the same directory made it. */
export async function makePki(dir: string): Promise<Pki> {
  const file = (name: string) => path.join(dir, name);
  if (!(await exists(file("sa.key")))) await makeNewPki(dir);
  return {
    caCert: await readFile(file("ca.crt"), "utf8"),
    caFile: file("ca.crt"),
    serverCertFile: file("kube-apiserver.crt"),
    serverKeyFile: file("kube-apiserver.key"),
    serviceAccountPublicFile: file("sa.pub"),
    serviceAccountKeyFile: file("sa.key"),
    // Apart from the rest: a directory kept from before the controller manager ran gets them now.
    controllerManager: {
      serving: await once(certFiles(dir, "kube-controller-manager"), () =>
        signServingCert(dir, "kube-controller-manager"),
      ),
      client: await once(certFiles(dir, clientName(CONTROLLER_MANAGER_USER)), () =>
        signClientCert(dir, CONTROLLER_MANAGER_USER),
      ),
    },
    webhookClient: await once(certFiles(dir, clientName(WEBHOOK_CLIENT_USER)), () =>
      signClientCert(dir, WEBHOOK_CLIENT_USER),
    ),
  };
}

const once = async (files: CertFiles, sign: () => Promise<CertFiles>) =>
  (await exists(files.certFile)) ? files : sign();

async function makeNewPki(dir: string): Promise<void> {
  const file = (name: string) => path.join(dir, name);
  await run("openssl", [
    ...["req", "-x509", ...EC_KEY, "-subj", "/CN=exampledev-kube-ca"],
    ...extensions("basicConstraints=critical,CA:TRUE", "keyUsage=critical,keyCertSign,cRLSign"),
    ...out(dir, "ca"),
  ]);
  await signServingCert(dir, "kube-apiserver");
  const serviceAccount = generateKeyPairSync("ec", { namedCurve: "P-256" });
  await writeFile(file("sa.pub"), serviceAccount.publicKey.export({ type: "spki", format: "pem" }));
  // Written last: its presence says the rest was made.
  await writeFile(file("sa.key"), serviceAccount.privateKey.export({ type: "pkcs8", format: "pem" }), {
    mode: 0o600,
  });
}

/** A certificate and its key, as files. */
export interface CertFiles {
  certFile: string;
  keyFile: string;
}

/**
 * A serving certificate for 127.0.0.1 signed by the CA in `dir` (made by makePki): kube-apiserver's, and
 * the admission webhook's, which kube-apiserver verifies against the CA it is given in the webhook
 * configuration.
 */
export async function signServingCert(dir: string, name: string): Promise<CertFiles> {
  await run("openssl", [
    ...["req", "-x509", ...EC_KEY, "-CA", path.join(dir, "ca.crt"), "-CAkey", path.join(dir, "ca.key")],
    ...["-subj", `/CN=${name}`],
    ...extensions(
      "subjectAltName=IP:127.0.0.1,DNS:localhost",
      "basicConstraints=critical,CA:FALSE",
      "keyUsage=critical,digitalSignature",
      "extendedKeyUsage=serverAuth",
    ),
    ...out(dir, name),
  ]);
  return certFiles(dir, name);
}

/**
 * A client certificate for `user` in `groups`, signed by the CA in `dir`: kube-apiserver, given that CA as
 * `--client-ca-file`, authenticates it as the user (CN) with the groups (O), as kubeadm's admin.conf is.
 */
export async function signClientCert(
  dir: string,
  user: string,
  groups: readonly string[] = [],
): Promise<CertFiles> {
  const name = clientName(user);
  const subject = `/CN=${user}${groups.map((group) => `/O=${group}`).join("")}`;
  await run("openssl", [
    ...["req", "-x509", ...EC_KEY, "-CA", path.join(dir, "ca.crt"), "-CAkey", path.join(dir, "ca.key")],
    ...["-subj", subject],
    ...extensions(
      "basicConstraints=critical,CA:FALSE",
      "keyUsage=critical,digitalSignature",
      "extendedKeyUsage=clientAuth",
    ),
    ...out(dir, name),
  ]);
  return certFiles(dir, name);
}

const clientName = (user: string) => `client-${user.replace(/[^A-Za-z0-9_.-]/g, "_")}`;

function certFiles(dir: string, name: string): CertFiles {
  return { certFile: path.join(dir, `${name}.crt`), keyFile: path.join(dir, `${name}.key`) };
}

function out(dir: string, name: string): string[] {
  const { certFile, keyFile } = certFiles(dir, name);
  return ["-keyout", keyFile, "-out", certFile];
}
