/** The logging the domain and the job worker need; pino's (and so Fastify's) logger is one. */
export interface Logger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}
