import { apiErrorFromResponse } from "../errors";
import type { Transport } from "./transport";

/**
 * `events.k8s.io/v1` Events, as client-go's events recorder writes them: a create per new series, a merge
 * patch of its `series` after. One attempt per call: a recorder drops what it cannot write rather than
 * hold the caller up (Events are history, never state).
 */
export interface EventV1 {
  apiVersion: "events.k8s.io/v1";
  kind: "Event";
  metadata: { name: string; namespace: string; [key: string]: unknown };
  eventTime: string;
  series?: { count: number; lastObservedTime: string };
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  regarding: { apiVersion?: string; kind: string; name: string; uid?: string; resourceVersion?: string };
  note?: string;
  type: "Normal" | "Warning";
  [key: string]: unknown;
}

export interface EventClient {
  create(event: EventV1): Promise<EventV1>;
  patch(namespace: string, name: string, patch: Record<string, unknown>): Promise<EventV1>;
}

export function eventClient(transport: Transport, redact: readonly string[]): EventClient {
  const collection = (namespace: string) =>
    `/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/events`;
  const expect = (response: { statusCode: number; body: unknown }, name: string) => {
    if (response.statusCode < 200 || response.statusCode >= 300)
      throw apiErrorFromResponse(response.statusCode, response.body, { kind: "events", name, redact });
    return response.body as EventV1;
  };
  return {
    create: async (event) =>
      expect(
        await transport.send({
          method: "POST",
          path: collection(event.metadata.namespace),
          body: event,
          maxRetries: 0,
        }),
        event.metadata.name,
      ),
    patch: async (namespace, name, patch) =>
      expect(
        await transport.send({
          method: "PATCH",
          path: `${collection(namespace)}/${encodeURIComponent(name)}`,
          body: patch,
          contentType: "application/merge-patch+json",
          maxRetries: 0,
        }),
        name,
      ),
  };
}
