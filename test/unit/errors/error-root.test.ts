import { describe, expect, it } from "vitest";
import { PartialFailure } from "../../../provider/partial-failure";
import {
  ConnectionError,
  CreateUnconfirmedError,
  ExampledevError,
  NotFoundError,
  UnexpectedResponseError,
  WaitTimeoutError,
} from "../../../sdk/client";
import { KubeconfigError } from "../../../sdk/client/kubeconfig";

// One root above every error of the client and the provider: a caller catches them all with one check.
const init = { method: "GET", url: "http://127.0.0.1:1/api", mayHaveReachedServer: false, attempts: 1 };
const ERRORS: Error[] = [
  new NotFoundError({
    kind: "Status",
    apiVersion: "v1",
    status: "Failure",
    code: 404,
    reason: "NotFound",
    message: "gone",
  }),
  new ConnectionError("ECONNREFUSED", init),
  new UnexpectedResponseError(200, { method: "GET", url: init.url, contentType: "text/html" }),
  new WaitTimeoutError('Service "api"', 1_000, undefined),
  new CreateUnconfirmedError('Service "api"', "api", new Error("lost"), new Error("refused")),
  new KubeconfigError("no current-context"),
  new PartialFailure("not ready", "default/api", {}),
];

describe("ExampledevError", () => {
  it.each(ERRORS.map((error) => [error.constructor.name, error]))(
    "is the root of %s, named for its class",
    (name, error) => {
      expect(error).toBeInstanceOf(ExampledevError);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).name).toBe(name);
    },
  );
});
