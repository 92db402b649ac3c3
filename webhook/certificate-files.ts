import { readFile } from "node:fs/promises";
import { createSecureContext } from "node:tls";

/**
 * A serving certificate and key kept in files that change: a Secret volume the kubelet updates when
 * cert-manager (or anyone) renews the Secret. The files are read again every interval, as
 * controller-runtime's certwatcher polls (a Secret volume swaps a symlink, which file watches miss), and a
 * pair that differs from the one served and makes a valid TLS context is handed on. A pair caught half
 * written (a certificate that does not match its key) is skipped until the next read.
 */

export interface CertificateFiles {
  certFile: string;
  keyFile: string;
}

export interface CertificatePair {
  cert: string;
  key: string;
}

export async function readCertificateFiles({
  certFile,
  keyFile,
}: CertificateFiles): Promise<CertificatePair> {
  const [cert, key] = await Promise.all([readFile(certFile, "utf8"), readFile(keyFile, "utf8")]);
  return { cert, key };
}

export interface CertificateWatch {
  stop(): void;
}

export function watchCertificateFiles(
  files: CertificateFiles,
  served: CertificatePair,
  options: {
    intervalMs: number;
    onChange(pair: CertificatePair): void;
    /** A read or a pair that failed; the served one stays. */
    onError(error: unknown): void;
  },
): CertificateWatch {
  let current = served;
  let reading = false;
  const timer = setInterval(async () => {
    if (reading) return;
    reading = true;
    try {
      const pair = await readCertificateFiles(files);
      if (pair.cert === current.cert && pair.key === current.key) return;
      // Throws on a key that does not match the certificate.
      createSecureContext(pair);
      current = pair;
      options.onChange(pair);
    } catch (error) {
      options.onError(error);
    } finally {
      reading = false;
    }
  }, options.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
