import { execFile } from "node:child_process";
import { promisify } from "node:util";

/** A self-signed certificate for 127.0.0.1, made by openssl without touching the disk. */
export async function selfSignedCertificate(): Promise<{ key: string; cert: string }> {
  const { stdout } = await promisify(execFile)("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-days",
    "1",
    "-subj",
    "/CN=127.0.0.1",
    "-addext",
    "subjectAltName=IP:127.0.0.1",
    // "-": the key goes to stdout, followed by the certificate.
    "-keyout",
    "-",
  ]);
  const key = stdout.match(/-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----\n/)?.[0];
  const cert = stdout.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/)?.[0];
  if (!key || !cert) throw new Error("openssl did not print a key and a certificate");
  return { key, cert };
}
