/** The logging calls the controller makes; a fastify (pino) logger satisfies it. Never given secrets. */
export interface ControllerLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export const silentLogger: ControllerLogger = { info() {}, warn() {}, error() {} };
