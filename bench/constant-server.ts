import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import Fastify from 'fastify';

/**
 * The floor: bare Fastify answering every GET with the same JSON bytes (BODY_FILE); prints its
 * port. PROCESSES=N serves from N processes on one port, round-robin, as the service's cluster
 * mode does, so a multi-process list can be set against a multi-process floor.
 */
const processes = Number(process.env.PROCESSES ?? 1);

if (cluster.isPrimary && processes > 1) {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
  cluster.schedulingPolicy = cluster.SCHED_RR;
  let listening = 0;
  for (let i = 0; i < processes; i++) {
    cluster.fork({ PORT: String(port) }).once('listening', () => {
      if (++listening === processes) process.stdout.write(`Listening on port ${port}\n`);
    });
  }
  process.on('SIGTERM', () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
    process.exit(0);
  });
} else {
  const body = readFileSync(process.env.BODY_FILE!, 'utf8');
  const app = Fastify({ logger: false });
  app.get('/*', (_request, reply) => {
    reply.type('application/json; charset=utf-8').send(body);
  });
  await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
  const address = app.server.address();
  if (cluster.isPrimary) process.stdout.write(`Listening on port ${typeof address === 'object' && address ? address.port : 0}\n`);
}
