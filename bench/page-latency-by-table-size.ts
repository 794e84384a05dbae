import { Agent, request } from 'node:http';
import { ENGINE_LABEL, startServer } from './engines.js';
import { API, customerIds, type DataSet } from './owners-data-set.js';
import { median } from './stats.js';

/** Rounds, and request pairs per round. */
export const PAGE_LATENCY_PLAN = { rounds: 5, pairs: 1000 };

/**
 * Page latency against table size on one engine, with the noise of a shared machine taken out:
 * both data sets are served at once (one process each) and single requests alternate between them
 * (ABBA, so neither always goes first), on one kept-alive connection each, for the same page size;
 * so drift hits both alike. Five rounds of 1,000 pairs after a warm-up that visits every customer;
 * the ratio printed is the median of the rounds' ratios of medians, with their range.
 */
export async function comparePageLatencyByTableSize(small: DataSet, large: DataSet, limit: number): Promise<void> {
  const servers = await Promise.all([small, large].map(async (set) => ({ set, proc: await startServer(set.db, { WORKER_ENABLED: '0' }) })));
  try {
    const targets = await Promise.all(
      servers.map(async ({ set, proc }) => {
        const base = new URL(proc.baseUrl).origin;
        const ids = await customerIds(base, set.auth);
        const { hostname, port } = new URL(base);
        return { set, hostname, port, ids, agent: new Agent({ keepAlive: true, maxSockets: 1 }) };
      }),
    );
    const once = (t: (typeof targets)[number], pageLimit: number) =>
      new Promise<number>((resolve, reject) => {
        const path = `${API}/beneficial-owners?customerId=${t.ids[Math.floor(Math.random() * t.ids.length)]!}&limit=${pageLimit}`;
        const started = process.hrtime.bigint();
        const req = request({ hostname: t.hostname, port: t.port, path, agent: t.agent, headers: { authorization: t.set.auth } }, (res) => {
          res.resume();
          res.on('end', () => resolve(Number(process.hrtime.bigint() - started) / 1e6));
        });
        req.on('error', reject);
        req.end();
      });
    const { rounds, pairs } = PAGE_LATENCY_PLAN;
    const [smallT, largeT] = targets as [(typeof targets)[number], (typeof targets)[number]];
    for (const pageLimit of [1, limit]) {
      for (let i = 0; i < 2000; i++) await Promise.resolve(once(smallT, pageLimit)).then(() => once(largeT, pageLimit));
      const ratios: number[] = [];
      const all: [number[], number[]] = [[], []];
      for (let r = 0; r < rounds; r++) {
        const round: [number[], number[]] = [[], []];
        for (let i = 0; i < pairs; i++) {
          const order = i % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const);
          for (const k of order) round[k].push(await once(k === 0 ? smallT : largeT, pageLimit));
        }
        ratios.push(median(round[1]) / median(round[0]));
        all[0].push(...round[0]);
        all[1].push(...round[1]);
      }
      const [a, b] = all.map(median) as [number, number];
      process.stdout.write(
        `  ${ENGINE_LABEL[small.db.engine].padEnd(10)}  limit=${String(pageLimit).padEnd(3)} ${small.owners.toLocaleString('en')} owners p50 ${a.toFixed(3)} ms   ${large.owners.toLocaleString('en')} owners p50 ${b.toFixed(3)} ms   ` +
          `ratio ${median(ratios).toFixed(2)} (rounds ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})\n`,
      );
    }
    for (const t of targets) t.agent.destroy();
  } finally {
    for (const { proc } of servers) await proc.stop();
  }
}
