// Issue 47: a real Prometheus (Debian's `prometheus`, scripts/setup-prometheus.sh) scrapes the controller's
// health port and the local server's API port on loopback, and a PromQL query over its HTTP API returns the
// number of revisions minted. The controller here is the command's: its own registry served by the health
// server (controller/health.ts), against the local server whose embedded controller is paused. promtool
// checks the alerts deploy/optional/monitoring.yaml ships.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Controller, clusterOf, startController } from "../../controller";
import { type HealthServer, startHealthServer } from "../../controller/health";
import { controllerMetrics } from "../../controller/metrics";
import { ALERTS } from "../../deploy/monitoring";
import { type Client, createClient } from "../../sdk/client";
import { type RunningServer, startServer } from "../../server";
import { manifest } from "../helpers/server";

const PROMETHEUS = "/usr/bin/prometheus";
const PROMTOOL = "/usr/bin/promtool";
const DIGEST = (n: number) => `sha256:${n.toString(16).padStart(64, "0")}`;
const MINTS = 7;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === "object" && address ? address.port : 0;
}

describe.skipIf(!existsSync(PROMETHEUS))(
  "a Prometheus server scraping the controller and the local server",
  () => {
    let server: RunningServer;
    let client: Client;
    let controller: Controller;
    let health: HealthServer;
    let prometheus: ChildProcess;
    let promUrl: string;
    let dir: string;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "exampledev-prometheus-"));
      server = await startServer({ port: 0, storage: "memory", logLevel: "warn" });
      await server.pauseController();
      client = createClient({ baseUrl: server.url });
      const registry = new Registry();
      controllerMetrics(registry).leaderOf("exampledev-controller", () => true);
      controller = startController({ cluster: clusterOf(client), metrics: registry });
      health = await startHealthServer({ address: "127.0.0.1", port: 0 }, () => "leading", undefined, {
        registry,
      });
      const port = await freePort();
      promUrl = `http://127.0.0.1:${port}`;
      const target = (url: string) => new URL(url).host;
      writeFileSync(
        join(dir, "prometheus.yml"),
        [
          "global: {scrape_interval: 1s, evaluation_interval: 1s}",
          "scrape_configs:",
          `- {job_name: exampledev-controller, static_configs: [{targets: ["${target(health.url)}"]}]}`,
          `- {job_name: local-server, static_configs: [{targets: ["${target(server.url)}"]}]}`,
          "",
        ].join("\n"),
      );
      prometheus = spawn(
        PROMETHEUS,
        [
          `--config.file=${join(dir, "prometheus.yml")}`,
          `--storage.tsdb.path=${join(dir, "data")}`,
          `--web.listen-address=127.0.0.1:${port}`,
        ],
        { stdio: "ignore" },
      );
    }, 60_000);
    afterAll(async () => {
      prometheus?.kill("SIGTERM");
      await controller?.stop();
      await health?.close();
      await client?.close();
      await server?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    /** One PromQL query's single value, or undefined while it has none. */
    async function query(promql: string): Promise<number | undefined> {
      try {
        const answer = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(promql)}`);
        const body = (await answer.json()) as { data?: { result?: { value: [number, string] }[] } };
        const [first] = body.data?.result ?? [];
        return first === undefined ? undefined : Number(first.value[1]);
      } catch {
        return undefined;
      }
    }

    it("returns the number of revisions minted, and the server's creates, over its HTTP API", async () => {
      const started = Date.now();
      for (let n = 1; n <= MINTS; n++) {
        await client.services.create(
          manifest("Service", `scraped-${n}`, {
            source: { oci: { repo: "registry.example.dev/team/app", digest: DIGEST(n) } },
            template: { spec: { runtime: { compatibilityDate: "2024-09-01" } } },
          }) as never,
        );
      }
      await controller.idle();
      const minted = 'sum(exampledev_revisions_minted_total{job="exampledev-controller"})';
      await expect.poll(() => query(minted), { timeout: 60_000, interval: 500 }).toBe(MINTS);
      const creates =
        'sum(apiserver_request_total{job="local-server",verb="POST",resource="servicerevisions",code="201"})';
      // Scraped on its own schedule: the server's counter may reach Prometheus a scrape after the controller's.
      await expect.poll(() => query(creates), { timeout: 30_000, interval: 500 }).toBe(MINTS);
      expect(await query('sum(up{job=~"exampledev-controller|local-server"})')).toBe(2);
      expect(await query('workqueue_depth{job="exampledev-controller",name="services"}')).toBe(0);
      console.log(
        `Prometheus answered ${minted} = ${MINTS} ${Date.now() - started} ms after the first create`,
      );
    }, 90_000);

    it("promtool accepts the alerts of deploy/optional/monitoring.yaml", () => {
      const rules = join(dir, "rules.json");
      // JSON is YAML: the rules file promtool reads, the PrometheusRule's spec.
      writeFileSync(rules, JSON.stringify({ groups: [{ name: "exampledev", rules: ALERTS }] }));
      const out = execFileSync(PROMTOOL, ["check", "rules", rules], { encoding: "utf8" });
      expect(out).toContain(`SUCCESS: ${ALERTS.length} rules found`);
    });
  },
);
