import { basicAuth, seededDatabase, type BenchDatabase, type Engine } from './engines.js';

/** The list bench's data sets: business customers with their owners, seeded once per engine. */
export const API = '/2025-10-13';

export interface DataSet {
  owners: number;
  db: BenchDatabase;
  auth: string;
}

/** `customers` x `perCustomer` owners on this engine, seeded on first use and kept (`fresh` seeds again). */
export async function ownersDataSet(engine: Engine, customers: number, perCustomer: number, fresh: boolean): Promise<DataSet> {
  const args = ['--customers', String(customers), '--owners-per-customer', String(perCustomer)];
  const { db, credentials } = await seededDatabase(engine, `owners-${customers}x${perCustomer}`, args, fresh);
  return { owners: customers * perCustomer, db, auth: basicAuth(credentials) };
}

/** Every customer id of the data set, read through the API of a server started on it. */
export async function customerIds(base: string, auth: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const res = await fetch(`${base}${API}/customers?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { headers: { authorization: auth } });
    if (!res.ok) throw new Error(`GET /customers answered ${res.status}: ${await res.text()}`);
    const page = (await res.json()) as { data: { id: string }[]; nextCursor?: string };
    ids.push(...page.data.map((c) => c.id));
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
}
