import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

/** The floor: bare Fastify answering every GET with the same JSON bytes (BODY_FILE); prints its port. */
const body = readFileSync(process.env.BODY_FILE!, 'utf8');
const app = Fastify({ logger: false });
app.get('/*', (_request, reply) => {
  reply.type('application/json; charset=utf-8').send(body);
});
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(`Listening on port ${typeof address === 'object' && address ? address.port : 0}\n`);
