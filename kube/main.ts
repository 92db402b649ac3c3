// `npm run kube`: the project's API on a real Kubernetes API server (etcd, kube-apiserver and
// kube-controller-manager on loopback, the CRDs, the admission webhook; kube/api.ts) with the controller running in this process as its own
// service account, elected through the Lease as a replica of `exampledev-controller` is (its JSON log in
// <dir>/controller.log). Until Ctrl-C or one SIGTERM, which stops all of it. It prints `kubeconfig: <path>`
// on a line of its own once everything is ready, the controller leading. With --dir the data (etcd, keys,
// ports) stays there and a second start finds the objects again; without it, it goes on exit.
import path from "node:path";
import pino from "pino";
import { connectionOf } from "../cli/connection";
import { parseCommandLine } from "../cli/flags";
import { CONTROLLER_FLAGS, CONTROLLER_USAGE, controllerSettings } from "../controller/flags";
import { type Replica, startReplica } from "../controller/replica";
import { startKubeApi } from "./api";

const USAGE = `usage: npm run kube -- [--dir <dir>] [controller flags below]\n${CONTROLLER_USAGE}`;

async function main(): Promise<void> {
  const values = parseCommandLine(
    process.argv.slice(2),
    { dir: { type: "string" }, ...CONTROLLER_FLAGS },
    USAGE,
  );
  const settings = controllerSettings(values);
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  // npm forwards the terminal's Ctrl-C too: a second signal while stopping is the same request.
  process.on("SIGINT", () => stop());
  process.on("SIGTERM", () => stop());
  const api = await startKubeApi(values.dir === undefined ? {} : { dir: values.dir });
  let controller: Replica | undefined;
  try {
    const log = pino(
      { level: settings.logLevel },
      pino.destination({ dest: path.join(api.dir, "controller.log"), sync: false }),
    );
    controller = startReplica({
      connection: connectionOf({ kubeconfig: api.controllerKubeconfig }),
      settings,
      log,
    });
    controller.lost.then(() => {
      console.error("the controller lost its lease: stopping");
      process.exitCode = 1;
      stop();
    });
    const leading = await Promise.race([controller.leading.then(() => true), stopped.then(() => false)]);
    if (!leading) return;
    console.log(`kube-apiserver ${api.url}`);
    console.log(
      `data          ${values.dir === undefined ? `${api.dir} (removed on exit; --dir keeps it)` : api.dir}`,
    );
    console.log(`controller    ${controller.identity} (log: ${path.join(api.dir, "controller.log")})`);
    console.log(`kubectl --kubeconfig ${api.kubeconfig} get services.compute.example.dev`);
    console.log(`kubeconfig: ${api.kubeconfig}`);
    await stopped;
  } finally {
    await controller?.stop();
    await api.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
