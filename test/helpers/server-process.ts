import { startServerProcess as start, type ServerProcess as Started } from '../../src/cli/server-process.js';

export interface ServerProcess extends Started {
  /** Kills the process (SIGKILL unless told otherwise) and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

/** The real server as its own OS process, for tests that restart or kill it. */
export async function startServerProcess(env: Record<string, string>, timeoutMs = 30_000): Promise<ServerProcess> {
  const server = await start(env, { timeoutMs });
  return { ...server, kill: (signal = 'SIGKILL') => server.stop(signal) };
}
