import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Apiserver } from "./apiserver";
import { type Supervised, supervise } from "./processes";

/**
 * Debian's haproxy in front of the kube-apiservers, as a production control plane's load balancer: TCP
 * through (TLS ends at kube-apiserver, so client certificates and tokens reach it unchanged), each server
 * health-checked on `/readyz` over TLS against the environment's CA (anonymous: `/readyz` is public), taken
 * out after two failed checks and its sessions shut so clients reconnect to a live one, and a connection
 * refused by a dead server dispatched to another.
 *
 * Each server is listed a second time as an unchecked backup, used only while no server passes its check:
 * with etcd's quorum lost every /readyz fails, and a balancer with no server resets every connection (seen:
 * the client's "socket disconnected before secure TLS connection was established"). Through the backups,
 * kube-apiserver still answers reads from its watch cache and refuses writes with a Status saying etcd is
 * unavailable, as it does to a client that reaches it directly.
 */

export const HAPROXY = "/usr/sbin/haproxy";
/** Watches are long-lived: the idle timeouts are kube-apiserver's longest watch (30 min) and more. */
const IDLE = "1h";

export function haproxyConfig(port: number, caFile: string, servers: Apiserver[]): string {
  return [
    "global",
    "  log stdout format raw local0 info",
    "  maxconn 4096",
    "defaults",
    "  mode tcp",
    "  log global",
    "  option tcplog",
    "  retries 3",
    "  option redispatch 1",
    "  timeout connect 2s",
    `  timeout client ${IDLE}`,
    `  timeout server ${IDLE}`,
    `  timeout tunnel ${IDLE}`,
    "  timeout check 2s",
    "frontend kube-apiserver",
    `  bind 127.0.0.1:${port}`,
    "  default_backend kube-apiservers",
    "backend kube-apiservers",
    "  balance roundrobin",
    "  option httpchk",
    "  http-check send meth GET uri /readyz",
    "  http-check expect status 200",
    `  default-server check check-ssl verify required ca-file ${caFile} inter 500ms fall 2 rise 2 on-marked-down shutdown-sessions`,
    ...servers.map((server) => `  server ${server.name} ${new URL(server.url).host}`),
    ...servers.map(
      (server) => `  server ${server.name}-unchecked ${new URL(server.url).host} backup no-check`,
    ),
    "",
  ].join("\n");
}

export interface Balancer extends Supervised {
  url: string;
}

export async function startBalancer(
  dir: string,
  port: number,
  caFile: string,
  servers: Apiserver[],
): Promise<Balancer> {
  const config = path.join(dir, "haproxy.cfg");
  await writeFile(config, haproxyConfig(port, caFile, servers));
  // -db: in the foreground, logging to stdout (into haproxy.log).
  const balancer = supervise("haproxy", HAPROXY, ["-db", "-f", config], path.join(dir, "haproxy.log"));
  return Object.assign(balancer, { url: `https://127.0.0.1:${port}` });
}
