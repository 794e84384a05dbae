import { parseArgs } from 'node:util';
import { API_VERSION } from '../config.js';
import { renderOwner, type OwnerRole } from '../domain/customers/beneficial-owners.js';
import { newCustomerRow } from '../domain/customers/customers.js';
import { newId } from '../domain/shared/ids.js';
import { createPlatformWithToken } from '../domain/platform/platforms.js';
import { insertCustomers } from '../store/customers-repo.js';
import { moveListClockTo } from '../store/list-clock.js';
import { insertOwners } from '../store/owners-repo.js';
import type { BeneficialOwnerRow } from '../store/tables/beneficial-owners.js';
import type { CustomerRow } from '../store/tables/customers.js';
import type { CliCommand } from './main.js';
import { withServices } from './open.js';

const USAGE = 'Usage: seed --customers N --owners-per-customer M [--json]';
/** Rows per INSERT statement, well inside both engines' bind-parameter limits. */
const ROWS_PER_STATEMENT = 500;
/** Owners per transaction: big enough to amortise the commit, small enough to keep the write lock short. */
const OWNERS_PER_TRANSACTION = 20_000;
const ROLES: OwnerRole[][] = [['UBO'], ['UBO', 'DIRECTOR'], ['COMPANY_OFFICER'], ['CONTROL_PERSON']];
const FIRST = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken'];
const LAST = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Thompson'];

function positiveInt(name: string, value: string | undefined, min: number): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min) throw new UsageError(`--${name} must be an integer >= ${min}, not ${JSON.stringify(value)}`);
  return n;
}

class UsageError extends Error {}

function ownerRow(platformId: string, customerId: string, n: number, now: number): BeneficialOwnerRow {
  const id = newId('BeneficialOwner');
  const at = new Date(now).toISOString();
  const first = FIRST[n % FIRST.length]!;
  const last = LAST[(n >> 3) % LAST.length]!;
  const body = renderOwner({
    id,
    customerId,
    roles: ROLES[n % ROLES.length]!,
    ownershipPercentage: n % 101,
    personalInfo: {
      firstName: first,
      lastName: last,
      birthDate: `19${50 + (n % 50)}-0${1 + (n % 9)}-1${n % 10}`,
      nationality: 'US',
      email: `${first.toLowerCase()}.${last.toLowerCase()}${n}@example.com`,
      phoneNumber: `+1415555${String(n % 10000).padStart(4, '0')}`,
      address: { line1: `${1 + (n % 999)} Market Street`, city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' },
      idType: 'SSN',
      identifier: `${String(n % 1000).padStart(3, '0')}-45-6789`,
    },
    kycStatus: 'UNVERIFIED',
    createdAt: at,
    updatedAt: at,
  });
  return { customer_id: customerId, created_at: now, id, platform_id: platformId, updated_at: now, body };
}

function progressBar(total: number): (done: number) => void {
  if (!process.stderr.isTTY || total === 0) return () => {};
  const started = Date.now();
  return (done) => {
    const width = 30;
    const filled = Math.round((done / total) * width);
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.floor((done / total) * 100)}%  ${done.toLocaleString('en')}/${total.toLocaleString('en')} owners  ${secs}s`);
    if (done >= total) process.stderr.write('\n');
  };
}

export const seedCommand: CliCommand = {
  summary: 'create a platform with business customers and beneficial owners (demos, benchmarks)',
  async run(args) {
    let customers: number;
    let perCustomer: number;
    let json: boolean;
    try {
      const { values } = parseArgs({
        args,
        options: { customers: { type: 'string', default: '10' }, 'owners-per-customer': { type: 'string', default: '5' }, json: { type: 'boolean', default: false } },
      });
      customers = positiveInt('customers', values.customers, 1);
      perCustomer = positiveInt('owners-per-customer', values['owners-per-customer'], 0);
      json = values.json;
    } catch (err) {
      process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
      return 2;
    }

    return withServices(async ({ store, tokens, config }) => {
      const started = Date.now();
      const { platformId, token } = await createPlatformWithToken(store, tokens, `Seed platform ${new Date().toISOString()}`);
      const total = customers * perCustomer;
      const progress = progressBar(total);
      const customersPerTransaction = Math.max(1, Math.floor(OWNERS_PER_TRANSACTION / Math.max(1, perCustomer)));
      const sampleIds: string[] = [];
      let done = 0;
      for (let c = 0; c < customers; c += customersPerTransaction) {
        const now = Date.now();
        const batch: CustomerRow[] = [];
        for (let i = c; i < Math.min(customers, c + customersPerTransaction); i++) {
          const row = newCustomerRow(
            platformId,
            {
              customerType: 'BUSINESS',
              platformCustomerId: `seed-${i + 1}`,
              businessInfo: { legalName: `Seed Business ${i + 1} LLC`, incorporatedOn: '2018-03-14', taxId: `47-${String(i).padStart(7, '0')}` },
              address: { line1: `${i + 1} Commerce Way`, city: 'Austin', state: 'TX', postalCode: '78701', country: 'US' },
            },
            now,
          );
          row.owner_count = perCustomer;
          row.owner_clock = now;
          batch.push(row);
          if (sampleIds.length < 10) sampleIds.push(row.id);
        }
        await store.transaction(async ({ db }) => {
          for (let i = 0; i < batch.length; i += ROWS_PER_STATEMENT) await insertCustomers(db, batch.slice(i, i + ROWS_PER_STATEMENT));
          let owners: BeneficialOwnerRow[] = [];
          for (const customer of batch) {
            for (let k = 0; k < perCustomer; k++) {
              owners.push(ownerRow(platformId, customer.id, done + owners.length, now));
              if (owners.length === ROWS_PER_STATEMENT) {
                await insertOwners(db, owners);
                done += owners.length;
                owners = [];
              }
            }
          }
          await insertOwners(db, owners);
          done += owners.length;
          // Rows created later through the API are stamped after these.
          await moveListClockTo(db, platformId, now);
        });
        progress(done);
      }
      const elapsedMs = Date.now() - started;
      const result = {
        platformId,
        tokenId: token.id,
        clientId: token.clientId,
        clientSecret: token.clientSecret,
        customers,
        ownersPerCustomer: perCustomer,
        owners: total,
        sampleCustomerIds: sampleIds,
        elapsedMs,
      };
      if (json) process.stdout.write(`${JSON.stringify(result)}\n`);
      else {
        process.stdout.write(
          [
            `Seeded ${customers.toLocaleString('en')} business customers with ${perCustomer.toLocaleString('en')} owners each (${total.toLocaleString('en')} owners) in ${(elapsedMs / 1000).toFixed(1)} s`,
            `  Platform:      ${platformId}`,
            `  Token id:      ${token.id}`,
            `  Client id:     ${token.clientId}`,
            `  Client secret: ${token.clientSecret}  (shown once)`,
            '  Some customers:',
            ...sampleIds.map((id) => `    ${id}`),
            '',
            'Try it:',
            `  curl -u '${token.clientId}:${token.clientSecret}' 'http://${config.host}:${config.port}/${API_VERSION}/beneficial-owners?customerId=${sampleIds[0]}&limit=5'`,
            '',
          ].join('\n'),
        );
      }
      return 0;
    });
  },
};
