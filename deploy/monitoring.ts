// What a team applies with the Prometheus Operator (deploy/optional/monitoring.yaml): a ServiceMonitor per
// component (the controller's health port, the webhook's HTTPS port), the ClusterRole that lets Prometheus
// `get /metrics` (each component asks kube-apiserver whether the caller may: sdk/client/reviews.ts) bound to
// Prometheus' service account, and a PrometheusRule with the alerts that matter. The alert expressions are
// checked by the real `promtool` in test/e2e/prometheus.test.ts.
import { SECRETS_NAMESPACE } from "../sdk/schema";
import { ADMISSION_IDENTITY, CONTROLLER_IDENTITY, type Manifest } from "./identities";

/** kube-prometheus' defaults; replace them with the namespace and service account your Prometheus runs as. */
export const PROMETHEUS_SERVICE_ACCOUNT = { namespace: "monitoring", name: "prometheus-k8s" };
const READER = "exampledev-metrics-reader";
const TOKEN_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/token";

export interface Alert {
  alert: string;
  expr: string;
  for: string;
  labels: { severity: "warning" | "critical" };
  annotations: { summary: string; description: string };
}

/** The alerts: no leader, the queue growing, a registry lane failing, the webhook refusing everything. */
export const ALERTS: readonly Alert[] = [
  {
    alert: "ExampledevControllerNoLeader",
    expr: `max(leader_election_master_status{job="${CONTROLLER_IDENTITY.name}"}) < 1 or absent(leader_election_master_status{job="${CONTROLLER_IDENTITY.name}"})`,
    for: "5m",
    labels: { severity: "critical" },
    annotations: {
      summary: "No exampledev-controller replica holds the Lease",
      description: "Nothing mints revisions or drains Proxies: check the controller pods and their Lease.",
    },
  },
  {
    alert: "ExampledevWorkQueueGrowing",
    expr: 'workqueue_depth{name="services"} > 100 and deriv(workqueue_depth{name="services"}[15m]) > 0',
    for: "15m",
    labels: { severity: "warning" },
    annotations: {
      summary: "The controller's Service queue grows",
      description: "{{ $value }} Services wait for a sync and the queue keeps growing: more workers, or a slow API server.",
    },
  },
  {
    alert: "ExampledevRegistryLaneFailing",
    expr: "max by (host) (exampledev_lane_consecutive_failures) >= 3",
    for: "10m",
    labels: { severity: "warning" },
    annotations: {
      summary: "Registry {{ $labels.host }} keeps failing",
      description: "Tags on {{ $labels.host }} are not resolved: the Services that follow them mint nothing.",
    },
  },
  {
    alert: "ExampledevAdmissionRefusingEverything",
    expr: 'sum(rate(exampledev_admission_decisions_total{allowed="false"}[10m])) / sum(rate(exampledev_admission_decisions_total[10m])) > 0.95',
    for: "10m",
    labels: { severity: "critical" },
    annotations: {
      summary: "The admission webhook refuses nearly every write",
      description: "More than 95% of reviews were refused for 10 minutes: a broken webhook, or a client looping on a bad write.",
    },
  },
];

function serviceMonitor(name: string, namespace: string, endpoint: Record<string, unknown>): Manifest {
  return {
    apiVersion: "monitoring.coreos.com/v1",
    kind: "ServiceMonitor",
    metadata: { name, namespace },
    spec: {
      jobLabel: "app.kubernetes.io/name",
      selector: { matchLabels: { "app.kubernetes.io/name": name } },
      endpoints: [{ path: "/metrics", interval: "30s", bearerTokenFile: TOKEN_FILE, ...endpoint }],
    },
  };
}

export function monitoringObjects(webhookNamespace: string): Manifest[] {
  return [
    serviceMonitor(CONTROLLER_IDENTITY.name, SECRETS_NAMESPACE, { port: "http", scheme: "http" }),
    serviceMonitor(ADMISSION_IDENTITY.name, webhookNamespace, {
      port: "https",
      scheme: "https",
      // The webhook's serving certificate names its Service, not the pod Prometheus scrapes.
      tlsConfig: { insecureSkipVerify: true },
    }),
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: READER },
      rules: [{ nonResourceURLs: ["/metrics"], verbs: ["get"] }],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: READER },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: READER },
      subjects: [{ kind: "ServiceAccount", ...PROMETHEUS_SERVICE_ACCOUNT }],
    },
    {
      apiVersion: "monitoring.coreos.com/v1",
      kind: "PrometheusRule",
      metadata: { name: "exampledev", namespace: SECRETS_NAMESPACE },
      spec: { groups: [{ name: "exampledev", rules: ALERTS }] },
    },
  ];
}
