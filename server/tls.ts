// TLS for the local server, so that kubectl (which sends a kubeconfig's token only over TLS) can use a
// server started with --token: a certificate and key from files (kube-apiserver's --tls-cert-file and
// --tls-private-key-file), or a self-signed one made at start (openssl, as kube/pki.ts makes the cluster's:
// node:crypto makes keys, not certificates) naming the loopback addresses, localhost and --host, whose
// certificate is its own CA: the server writes it to a file and prints where, for a kubeconfig's
// certificate-authority.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TlsFiles {
  /** PEM certificate chain, and its key. */
  cert: string;
  key: string;
}

/** A self-signed certificate for `hosts` (IP addresses or DNS names), valid a year. */
export function selfSignedCertificate(hosts: readonly string[]): TlsFiles {
  const names = new Set([
    "127.0.0.1",
    "::1",
    "localhost",
    ...hosts.filter((host) => host !== "" && host !== "0.0.0.0" && host !== "::"),
  ]);
  const san = [...names].map((name) => (/^[\d.]+$|:/.test(name) ? `IP:${name}` : `DNS:${name}`)).join(",");
  const dir = mkdtempSync(join(tmpdir(), "exampledev-server-tls-"));
  try {
    execFileSync(
      "openssl",
      [
        ...[
          "req",
          "-x509",
          "-newkey",
          "ec",
          "-pkeyopt",
          "ec_paramgen_curve:prime256v1",
          "-nodes",
          "-days",
          "365",
        ],
        ...["-subj", "/CN=exampledev-server", "-addext", `subjectAltName=${san}`],
        ...["-addext", "extendedKeyUsage=serverAuth"],
        ...["-keyout", join(dir, "tls.key"), "-out", join(dir, "tls.crt")],
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    return {
      cert: readFileSync(join(dir, "tls.crt"), "utf8"),
      key: readFileSync(join(dir, "tls.key"), "utf8"),
    };
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`--tls-self-signed: openssl could not make a certificate${stderr ? `: ${stderr}` : ""}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The certificate and key the flags name. */
export function readTlsFiles(certFile: string, keyFile: string): TlsFiles {
  const read = (flag: string, file: string) => {
    try {
      return readFileSync(file, "utf8");
    } catch (error) {
      throw new Error(`${flag}: cannot read ${file}: ${(error as Error).message}`);
    }
  };
  return { cert: read("--tls-cert-file", certFile), key: read("--tls-private-key-file", keyFile) };
}
