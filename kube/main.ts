// `npm run kube`: the project's API on a real Kubernetes API server (etcd, kube-apiserver and
// kube-controller-manager on loopback, the CRDs, the admission webhook; kube/api.ts) with the controller running in this process as its own
// service account, elected through the Lease as a replica of `exampledev-controller` is (its JSON log in
// <dir>/controller.log). Until Ctrl-C or one SIGTERM, which stops all of it. It prints `kubeconfig: <path>`
// on a line of its own once everything is ready, the controller leading. With --dir the data (etcd, keys,
// ports) stays there and a second start finds the objects again; without it, it goes on exit. With
// --etcd-members 3 --apiservers 2, a highly available control plane: an etcd cluster, kube-apiservers behind
// haproxy (health-checking /readyz), the kubeconfig at the balancer.
import path from "node:path";
import pino from "pino";
import { connectionOf } from "../cli/connection";
import { FlagError, parseCommandLine, parsedOrExit } from "../cli/flags";
import { CONTROLLER_FLAGS, CONTROLLER_USAGE, controllerSettings } from "../controller/flags";
import { type Replica, startReplica } from "../controller/replica";
import { startKubeApi } from "./api";

const USAGE = `usage: npm run kube -- [--dir <dir>] [--etcd-members <n>] [--apiservers <n>] [controller flags below]

  --dir <dir>            keep the data (etcd's, the keys, the admin token, the ports) in <dir> for the next start
  --etcd-members <n>     etcd members in one cluster: 1 (default), 3 or 5
  --apiservers <n>       kube-apiservers on that etcd (default 1); more than one are behind Debian's haproxy,
                         which health-checks /readyz, and the kubeconfig points at the balancer

  EXAMPLEDEV_KUBE_VERSION=1.35 picks another supported Kubernetes minor (docs/kubernetes.md#supported-versions)
${CONTROLLER_USAGE}`;

/** A count flag: a whole number of at least 1. */
function count(flag: string, text: string | undefined): number {
  if (text === undefined) return 1;
  if (!/^[1-9]\d*$/.test(text)) throw new FlagError(`--${flag}: "${text}" is not a number of at least 1`);
  return Number(text);
}

async function main(): Promise<void> {
  const values = parseCommandLine(
    process.argv.slice(2),
    {
      dir: { type: "string" },
      "etcd-members": { type: "string" },
      apiservers: { type: "string" },
      ...CONTROLLER_FLAGS,
    },
    USAGE,
  );
  const settings = controllerSettings(values);
  const layout = parsedOrExit(
    () => ({
      etcdMembers: count("etcd-members", values["etcd-members"]),
      apiservers: count("apiservers", values.apiservers),
    }),
    USAGE,
  );
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  // npm forwards the terminal's Ctrl-C too: a second signal while stopping is the same request.
  process.on("SIGINT", () => stop());
  process.on("SIGTERM", () => stop());
  const api = await startKubeApi({ ...(values.dir === undefined ? {} : { dir: values.dir }), ...layout });
  let controller: Replica | undefined;
  let stopping = false;
  try {
    const log = pino(
      { level: settings.logLevel },
      pino.destination({ dest: path.join(api.dir, "controller.log"), sync: false }),
    );
    // A replica that lost its lease (no renewal for 10 s: etcd without quorum, every kube-apiserver down) has
    // stopped acting; a new one takes its place, as a kubelet restarts the container of a replica that exited,
    // and leads once the API takes writes again and the old lease expires.
    const replica = (): Replica => {
      const started = startReplica({
        connection: connectionOf({ kubeconfig: api.controllerKubeconfig }),
        settings,
        log,
      });
      started.lost.then(async () => {
        if (stopping) return;
        console.error(`the controller ${started.identity} lost its lease: starting a new replica`);
        await started.stop();
        if (!stopping) controller = replica();
      });
      return started;
    };
    controller = replica();
    const leading = await Promise.race([controller.leading.then(() => true), stopped.then(() => false)]);
    if (!leading) return;
    console.log(
      `kubernetes    ${api.versions.kube} (kube-apiserver, kube-controller-manager), etcd ${api.versions.etcd}`,
    );
    console.log(`api           ${api.url}${api.balancer === undefined ? "" : " (haproxy)"}`);
    for (const process of api.processes)
      console.log(`${process.name.padEnd(24)} pid ${process.current.child.pid} (log: ${process.log})`);
    console.log(
      `data          ${values.dir === undefined ? `${api.dir} (removed on exit; --dir keeps it)` : api.dir}`,
    );
    console.log(`controller    ${controller.identity} (log: ${path.join(api.dir, "controller.log")})`);
    console.log(`kubectl --kubeconfig ${api.kubeconfig} get services.compute.example.dev`);
    console.log(`kubeconfig: ${api.kubeconfig}`);
    await stopped;
  } finally {
    stopping = true;
    await controller?.stop();
    await api.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
