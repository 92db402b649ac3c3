/** The logging calls the builder makes; a fastify (pino) logger satisfies it. Never given secrets. */
export interface Logger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}
