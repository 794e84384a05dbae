import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  /** e.g. http://127.0.0.1:43121/2025-10-13 */
  baseUrl: string;
  /** The credentials printed on a first start (an empty database); undefined otherwise. */
  credentials: { clientId: string; clientSecret: string } | undefined;
  /** The Authorization header for those credentials. */
  auth: string | undefined;
  /** Everything the process printed so far. */
  output(): string;
  exited: Promise<number | null>;
  /** Sends the signal (SIGTERM: a graceful stop) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartOptions {
  /** Extra node flags, e.g. --cpu-prof. */
  nodeArgs?: string[];
  timeoutMs?: number;
}

/**
 * Starts the real server (src/server.ts) as its own process, on a free loopback port unless `env`
 * says otherwise, and resolves once it listens. For the demo, the benchmarks and the tests.
 */
export async function startServerProcess(env: Record<string, string | undefined>, opts: StartOptions = {}): Promise<ServerProcess> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), '--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // The banner ends with the credentials on a first start, or with the hint to create some.
  const banner = /Base URL:\s+(\S+)[\s\S]*?(?:Client id:\s+(\S+)\s+Client secret:\s+(\S+)|Need credentials\?)/;
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    // A server that did not start in time is killed, not left running behind the caller's error.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start within ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const check = () => {
      const m = banner.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${out}`));
    });
  });
  const credentials = match[2] && match[3] ? { clientId: match[2], clientSecret: match[3] } : undefined;
  return {
    child,
    baseUrl: match[1]!,
    credentials,
    auth: credentials && `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`,
    output: () => out,
    exited,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
