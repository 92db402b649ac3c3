// `npm run kube`: the project's API on a real Kubernetes API server (etcd, kube-apiserver and
// kube-controller-manager on loopback, the CRDs, the admission webhook; kube/api.ts), until Ctrl-C or one
// SIGTERM, which stops all of it. It prints `kubeconfig: <path>` on a line of its own once everything is
// ready. With --dir the data (etcd, keys, ports) stays there and a second start finds the objects again;
// without it, it goes on exit.
import { parseArgs } from "node:util";
import { startKubeApi } from "./api";

const USAGE = "usage: npm run kube -- [--dir <dir>]";

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { dir: { type: "string" }, help: { type: "boolean" } } });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const stopped = new Promise<void>((resolve) => {
    // npm forwards the terminal's Ctrl-C too: a second signal while stopping is the same request.
    process.on("SIGINT", () => resolve());
    process.on("SIGTERM", () => resolve());
  });
  const api = await startKubeApi(values.dir === undefined ? {} : { dir: values.dir });
  try {
    console.log(`kube-apiserver ${api.url}`);
    console.log(
      `data          ${values.dir === undefined ? `${api.dir} (removed on exit; --dir keeps it)` : api.dir}`,
    );
    console.log(`kubectl --kubeconfig ${api.kubeconfig} get services.compute.example.dev`);
    console.log(`kubeconfig: ${api.kubeconfig}`);
    await stopped;
  } finally {
    await api.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
