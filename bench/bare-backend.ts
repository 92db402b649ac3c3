// A backend with no controller, for the minting benchmark's baseline (the API's own pace for the writes a
// Service costs): `node dist/bench/bare-backend.js local|kube`. It prints what the benchmark's other backends
// print once ready (`listening on <url>`, `kubeconfig: <path>`) and stops on SIGTERM or SIGINT.
//   local: the server in memory with its embedded controller paused from the start;
//   kube:  etcd, kube-apiserver, kube-controller-manager, the CRDs and the admission webhook (in this process,
//          as under `npm run kube`), and no controller.
import { once } from "node:events";
import { startKubeApi } from "../kube/api";
import { startServer } from "../server";

async function start(kind: string | undefined): Promise<() => Promise<void>> {
  if (kind === "local") {
    const server = await startServer({ port: 0, storage: "memory", logLevel: "silent" });
    await server.pauseController();
    console.log(`listening on ${server.url}`);
    return () => server.close();
  }
  if (kind === "kube") {
    const api = await startKubeApi();
    console.log(`kubeconfig: ${api.kubeconfig}`);
    return () => api.close();
  }
  throw new Error(`usage: bare-backend local|kube (not "${kind}")`);
}

async function main(): Promise<void> {
  const signalled = Promise.race([once(process, "SIGTERM"), once(process, "SIGINT")]);
  const close = await start(process.argv[2]);
  await signalled;
  await close();
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
