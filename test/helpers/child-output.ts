import type { ChildProcess } from "node:child_process";

/** What a child process wrote and how it ended (its exit code; null when a signal ended it). */
export interface ChildOutput {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Collects a spawned child's stdout and stderr until it closes. Asynchronous, unlike spawnSync, so a server
 * running in this process can answer the child meanwhile. Rejects when the child cannot start.
 */
export function collectOutput(child: ChildProcess): Promise<ChildOutput> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}
