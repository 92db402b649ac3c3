import type { Backend } from "./backends";
import { deletionTests } from "./deletion";
import { discoveryTests } from "./discovery";
import { serverSideApplyTests } from "./server-side-apply";
import { statusSubresourceTests } from "./status-subresource";
import { watchListTests } from "./watch-list";
import { writeTests } from "./writes";

/**
 * The Kubernetes-behaviour tests both servers must pass. `backend()` is the server of the enclosing describe.
 */
export function sharedTests(backend: () => Backend): void {
  discoveryTests(backend);
  writeTests(backend);
  statusSubresourceTests(backend);
  serverSideApplyTests(backend);
  watchListTests(backend);
  deletionTests(backend);
}
