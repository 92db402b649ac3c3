import path from "node:path";
import { fetch } from "undici";
import { type Supervised, supervise } from "./processes";

/**
 * etcd for the environment (kube/env.ts): one member by default, or a cluster of several (three or five, as a
 * production control plane runs it), each a process of its own on loopback, its data and log in the
 * environment's directory. Plain HTTP on loopback: only the kube-apiservers talk to it.
 */

export interface EtcdPorts {
  client: number;
  peer: number;
}

export interface EtcdMember extends Supervised {
  clientUrl: string;
  dataDir: string;
}

/**
 * The members' names, data directories and logs. A one-member cluster keeps the names it always had (`kube`,
 * `<dir>/etcd`, `etcd.log`), so a directory kept from before still starts; a cluster's are `etcd-<i>`.
 */
function layout(dir: string, index: number, count: number) {
  const name = count === 1 ? "kube" : `etcd-${index}`;
  const file = count === 1 ? "etcd" : `etcd-${index}`;
  return { name, dataDir: path.join(dir, file), log: path.join(dir, `${file}.log`) };
}

/** Starts every member at once (a new cluster's members wait for each other); they restart as members. */
export function startEtcd(binary: string, dir: string, ports: EtcdPorts[]): EtcdMember[] {
  const url = (port: number) => `http://127.0.0.1:${port}`;
  const initialCluster = ports
    .map((port, index) => `${layout(dir, index, ports.length).name}=${url(port.peer)}`)
    .join(",");
  return ports.map((port, index) => {
    const { name, dataDir, log } = layout(dir, index, ports.length);
    const clientUrl = url(port.client);
    const peerUrl = url(port.peer);
    const args = [
      ...["--name", name, "--data-dir", dataDir],
      ...["--listen-client-urls", clientUrl, "--advertise-client-urls", clientUrl],
      ...["--listen-peer-urls", peerUrl, "--initial-advertise-peer-urls", peerUrl],
      ...["--initial-cluster", initialCluster, "--initial-cluster-token", "exampledev-kube"],
      // Ignored once the data directory exists: a restarted member rejoins from its own data.
      ...["--initial-cluster-state", "new"],
    ];
    const member = supervise(ports.length === 1 ? "etcd" : name, binary, args, log);
    return Object.assign(member, { clientUrl, dataDir });
  });
}

/** What a member answers on /health (or why it does not), for messages. */
export async function etcdHealth(member: EtcdMember): Promise<string> {
  try {
    const response = await fetch(`${member.clientUrl}/health`, { signal: AbortSignal.timeout(5_000) });
    return `${response.status} ${await response.text()}`;
  } catch (error) {
    return String(error);
  }
}

/** Whether a member answers /health with `"health":"true"` (it is part of a cluster with a leader). */
export async function etcdHealthy(member: EtcdMember): Promise<boolean> {
  try {
    const response = await fetch(`${member.clientUrl}/health`, { signal: AbortSignal.timeout(2_000) });
    return response.status === 200 && ((await response.json()) as { health?: string }).health === "true";
  } catch {
    return false;
  }
}

/** The member that leads the cluster now (etcd's maintenance status: its own id and its leader's), if any. */
export async function etcdLeader(members: EtcdMember[]): Promise<EtcdMember | undefined> {
  for (const member of members) {
    try {
      const response = await fetch(`${member.clientUrl}/v3/maintenance/status`, {
        method: "POST",
        body: "{}",
        signal: AbortSignal.timeout(2_000),
      });
      if (response.status !== 200) continue;
      const status = (await response.json()) as { header?: { member_id?: string }; leader?: string };
      if (status.leader !== undefined && status.leader === status.header?.member_id) return member;
    } catch {
      // Down, or cut off from the others: ask the next one.
    }
  }
  return undefined;
}
