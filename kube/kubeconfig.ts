import { stringify } from "yaml";

/** A kubeconfig with one cluster (the environment's, trusting its CA) and one user, as YAML. */
export function kubeconfigYaml(
  server: string,
  caCert: string,
  user: { name: string; credentials: Record<string, string> },
): string {
  const name = "exampledev-kube";
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      { name, cluster: { server, "certificate-authority-data": Buffer.from(caCert).toString("base64") } },
    ],
    users: [{ name: user.name, user: user.credentials }],
    contexts: [{ name, context: { cluster: name, user: user.name } }],
    "current-context": name,
  });
}
