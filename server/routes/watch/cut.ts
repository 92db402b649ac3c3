import type { Socket } from "node:net";

/**
 * Cuts a watch's connection with a TCP reset: a client that stopped reading has the kernel's buffers full on
 * both sides, so a graceful close (a FIN queued behind them) never reaches it, and the server's end would
 * linger in FIN-WAIT-1 holding those buffers. A reset discards them and closes both ends at once. A socket
 * that cannot send one (TLS: its handle is not the TCP one) is destroyed.
 */
export function cutConnection(socket: Socket | null): void {
  if (socket === null || socket.destroyed) return;
  try {
    socket.resetAndDestroy();
  } catch {
    socket.destroy();
  }
}
