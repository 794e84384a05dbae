import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { everyConfigField } from '../fixtures/platform-config.js';
import { catalogueCodes } from '../helpers/error-object.js';
import { activeCard } from '../helpers/fixtures.js';
import { eurAccount, ibanEndingIn, usdAccount, walletAccount } from '../helpers/external-accounts.js';
import { FILES, multipartForm, type FormPart } from '../helpers/multipart.js';
import { businessCustomer, createBusiness, ownerInput } from '../helpers/owners.js';
import { BASE, basicAuth, describeEachEngine, type TestApp } from '../helpers/test-app.js';

/**
 * The hostile sweep: valid requests to every operation, mutated the way an attacker or a broken
 * client would (control characters, overlong and badly encoded ids, traversal, wrong JSON types,
 * huge numbers, deep nesting, duplicate keys, odd content types and credentials, wrong methods),
 * generated from a seeded PRNG so a failure replays exactly. Every answer must be below 500, every
 * non-2xx body the Error object with a code of its status, and no body may show internals.
 */
const SEED = 0x13_0b5e;
const REQUESTS_PER_ENGINE = 10_000;
const IN_FLIGHT = 8;

/** mulberry32: small, fast, and the same sequence on every machine. */
class Rng {
  constructor(private state: number) {}
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
}

/** One request before it is sent: the path keeps `:id` until then, the body stays a value unless a mutation writes raw bytes. */
interface Draft {
  method: string;
  path: string;
  id: string | undefined;
  query: string[];
  body: unknown;
  /** The parts of a multipart/form-data body (the upload operations), sent as such unless a mutation writes raw bytes or a JSON body. */
  form: FormPart[] | undefined;
  rawBody: string | Buffer | undefined;
  headers: Record<string, string>;
  mutations: string[];
}

interface Template {
  method: string;
  path: string;
  id?: string;
  query?: Record<string, string>;
  body?: unknown;
  form?: FormPart[];
}

const CONTROL = ['\u0000', '\u0001', '\u0008', '\u000b', '\u001b', '\u001f', '\u007f', '\r\n', '\t'];
const enc = encodeURIComponent;

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8'];
const ODD_CONTENT_TYPES = [
  'text/plain',
  'text/plain; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json; charset="utf-16le"',
  'application/json; charset=',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----x',
  'application/json, text/plain',
  'application/vnd.api+json',
  'application/problem+json',
  'APPLICATION/JSON',
  'application/json;;;',
  'application/json; charset=utf-8; q=0.5; x=y',
  'application/xml',
  '*/*',
  'application/jsonx',
  'application',
  ';',
  'json',
  'application/octet-stream',
];

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'SEARCH', 'PROPFIND'];

/** Every leaf's path inside a JSON value, so a mutation can aim at any field at any depth. */
function leaves(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.length === 0 ? [path] : value.flatMap((v, i) => leaves(v, [...path, i]));
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    return entries.length === 0 ? [path] : entries.flatMap(([k, v]) => leaves(v, [...path, k]));
  }
  return [path];
}

function setAt(root: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = value;
  return copy;
}

function objectsIn(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [];
  const here = Array.isArray(value) ? [] : [path];
  return [...here, ...Object.entries(value).flatMap(([k, v]) => objectsIn(v, [...path, Array.isArray(value) ? Number(k) : k]))];
}

function getAt(root: unknown, path: (string | number)[]): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], root);
}

function hostileString(rng: Rng): string {
  switch (rng.int(0, 7)) {
    case 0:
      return `a${rng.pick(CONTROL)}b`;
    case 1:
      return rng.pick(CONTROL);
    case 2:
      return 'x'.repeat(rng.int(201, 20_000));
    case 3:
      return rng.pick([' ', '   ', '\u00a0', '\u2003 ', '\u200b']);
    case 4:
      return rng.pick(['\u202eevil', '💩'.repeat(50), 'ǅ'.repeat(300), '\ud800', 'e\u0301'.repeat(150)]);
    case 5:
      return rng.pick(["' OR '1'='1", '"; DROP TABLE customers; --', '${7*7}', '{{7*7}}', '<script>alert(1)</script>', '../../etc/passwd']);
    case 6:
      return '';
    default:
      return rng.pick(['2023-02-30', '0001-01-01', '9999-12-31', '1900-00-00', '2024-13-01T00:00:00Z']);
  }
}

function hostileValue(rng: Rng): unknown {
  return rng.pick<() => unknown>([
    () => rng.int(-1_000_000, 1_000_000),
    () => -1,
    () => 0,
    () => 1.5,
    () => Number.MAX_SAFE_INTEGER + 2,
    () => 1e308,
    () => -1e308,
    () => true,
    () => null,
    () => [],
    () => [null],
    () => ({}),
    () => ({ a: 1 }),
    () => '123',
    () => 'true',
    () => hostileString(rng),
  ])();
}

function deepJson(rng: Rng): string {
  const depth = rng.int(100, 120_000);
  return rng.next() < 0.5 ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

type Mutation = (d: Draft, rng: Rng, ctx: Ctx) => void;

interface Ctx {
  auth: string;
  clientId: string;
  tokenId: string;
  secret: string;
}

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

const MUTATIONS: Record<string, Mutation> = {
  'id: control character'(d, rng) {
    if (d.id === undefined) return;
    const c = rng.pick(CONTROL);
    d.id = `${d.id.slice(0, rng.int(0, d.id.length))}${enc(c)}${d.id.slice(rng.int(0, d.id.length))}`;
  },
  'id: overlong'(d, rng) {
    if (d.id === undefined) return;
    d.id = rng.pick(['x', '%C3%A9', 'Customer:', '0'])!.repeat(rng.int(129, 3000));
  },
  'id: bad percent-encoding'(d, rng) {
    if (d.id === undefined) return;
    d.id = `${d.id}${rng.pick(['%', '%z', '%zz', '%e0%80', '%c3', '%ff%fe', '%C0%AF', '%%', '%u0041', '%ED%A0%80'])}`;
  },
  'id: traversal and separators'(d, rng) {
    if (d.id === undefined) return;
    d.id = rng.pick(['..%2f..%2fetc%2fpasswd', '%2e%2e', '%2e%2e%2f%2e%2e%2fhealthz', 'a%2fb', 'a%5cb', '%2f', '.%2e', 'a;b', 'a%3Fb', 'a%23b']);
  },
  'id: odd text'(d, rng) {
    if (d.id === undefined) return;
    d.id = enc(rng.pick(['💩', '\u202eevil', ' ', "' OR '1'='1", 'Customer:00000000-0000-0000-0000-000000000000', 'null', 'undefined', '__proto__', 'constructor', '-1', '1e999']));
  },
  'query: control character'(d, rng) {
    const name = d.query.length > 0 && rng.next() < 0.7 ? d.query[rng.int(0, d.query.length - 1)]!.split('=')[0]! : rng.pick(['limit', 'cursor', 'customerId', 'name', 'type']);
    d.query = d.query.filter((q) => !q.startsWith(`${name}=`));
    d.query.push(`${name}=${enc(`v${rng.pick(CONTROL)}`)}`);
  },
  'query: unknown, duplicate or array parameter'(d, rng) {
    const existing = d.query.length > 0 ? d.query[rng.int(0, d.query.length - 1)]! : 'limit=2';
    d.query.push(rng.pick([existing, 'foo=bar', `${existing.split('=')[0]}[]=1`, `${existing.split('=')[0]}[a]=b`, '__proto__[x]=1', 'constructor=1', '=', '&&', 'a']));
  },
  'query: hostile value'(d, rng) {
    const name = rng.pick(['limit', 'cursor', 'customerId', 'cardholderId', 'cardId', 'name', 'type', 'deliveryState', 'customerType']);
    d.query = d.query.filter((q) => !q.startsWith(`${name}=`));
    d.query.push(`${name}=${rng.pick(['1e309', '99999999999999999999999', '-1', '0', '1.5', 'NaN', '', '%zz', '%', enc('x'.repeat(5000)), 'true', enc(' '), '%E0%A4%A'])}`);
  },
  'body: hostile string at a field'(d, rng) {
    if (d.body === undefined || d.rawBody !== undefined) return;
    d.body = setAt(d.body, rng.pick(leaves(d.body)), hostileString(rng));
  },
  'body: wrong JSON type at a field'(d, rng) {
    if (d.body === undefined || d.rawBody !== undefined) return;
    d.body = setAt(d.body, rng.pick(leaves(d.body)), hostileValue(rng));
  },
  'body: wrong type at the root'(d, rng) {
    if (d.rawBody !== undefined) return;
    d.body = rng.pick<unknown>([null, [], [d.body], 'text', 0, true, {}]);
  },
  'body: unknown field'(d, rng) {
    if (d.body === undefined || d.rawBody !== undefined) return;
    const at = rng.pick(objectsIn(d.body));
    if (at === undefined) return;
    const obj = { ...(getAt(d.body, at) as object), [rng.pick(['extra', 'isAdmin', 'platformId', 'id', 'status', 'kycStatus', 'constructor'])]: hostileValue(rng) };
    d.body = setAt(d.body, at, obj);
  },
  'body: prototype keys'(d, rng) {
    if (d.rawBody !== undefined) return;
    const json = JSON.stringify(d.body ?? {});
    const inject = rng.pick(['"__proto__":{"isAdmin":true}', '"constructor":{"prototype":{"isAdmin":true}}', '"__proto__":null']);
    d.rawBody = json.startsWith('{') && json.length > 2 ? `{${inject},${json.slice(1)}` : `{${inject}}`;
  },
  'body: duplicate keys'(d, rng) {
    if (d.body === null || typeof d.body !== 'object' || Array.isArray(d.body) || d.rawBody !== undefined) return;
    const keys = Object.keys(d.body);
    if (keys.length === 0) return;
    const key = rng.pick(keys);
    d.rawBody = `{${JSON.stringify(key)}:${JSON.stringify(hostileValue(rng))},${JSON.stringify(d.body).slice(1)}`;
  },
  'body: huge or malformed number'(d, rng) {
    if (d.body === undefined || d.rawBody !== undefined) return;
    const marker = 'HOSTILE_NUMBER_MARKER';
    d.rawBody = JSON.stringify(setAt(d.body, rng.pick(leaves(d.body)), marker)).replace(
      `"${marker}"`,
      rng.pick(['1e999999', '-1e999999', '123456789012345678901234567890', '0.0000000000000000000000001', '1E400', '-0', '00012', '0x10', 'NaN', 'Infinity', '1.', '.5', '+1']),
    );
  },
  'body: deep nesting'(d, rng) {
    d.rawBody = rng.next() < 0.5 || d.body === undefined ? deepJson(rng) : JSON.stringify(d.body).replace(/^\{/, `{"nested":${deepJson(rng)},`);
  },
  'body: not JSON'(d, rng) {
    d.rawBody = rng.pick(['', ' ', 'garbage', '{', '{"a":', '{"a" 1}', "{'a':1}", '[1,]', '{"a":1,}', 'null', '"str"', '\ufeff{}', '{}garbage', '{"a":"\\ud800"}', '{"a":"\\u0000"}', '{"a":"\\x41"}']);
  },
  'body: over 1 MiB'(d, rng) {
    d.rawBody = rng.next() < 0.5 ? `{"name":"${'x'.repeat(1024 * 1024)}"}` : `[${'1,'.repeat(600_000)}1]`;
  },
  'body: invalid UTF-8'(d, rng) {
    const json = JSON.stringify(d.body ?? { name: 'x' });
    const cut = rng.int(1, Math.max(1, json.length - 1));
    d.rawBody = Buffer.concat([Buffer.from(json.slice(0, cut)), Buffer.from(rng.pick([[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x00]])), Buffer.from(json.slice(cut))]);
  },
  'body: truncated'(d, rng) {
    const json = d.rawBody !== undefined ? d.rawBody.toString() : JSON.stringify(d.body ?? { name: 'x' });
    d.rawBody = json.slice(0, rng.int(0, Math.max(0, json.length - 1)));
  },
  'body: on a request that takes none'(d, rng) {
    d.rawBody = rng.pick(['{}', '{"a":1}', 'garbage', deepJson(rng)]);
    d.headers['content-type'] = rng.pick([...JSON_TYPES, ...ODD_CONTENT_TYPES]);
  },
  'form: hostile value in a field'(d, rng) {
    const fields = d.form?.filter((p) => 'value' in p) ?? [];
    if (fields.length === 0) return;
    const at = rng.pick(fields) as { value: string };
    at.value = hostileString(rng);
  },
  'form: unknown, repeated or nameless part'(d, rng) {
    if (!d.form) return;
    d.form.push(
      rng.pick<FormPart>([
        { name: rng.pick(['extra', '__proto__', 'constructor', 'documentHolder', 'file', 'documentType']), value: hostileString(rng) },
        { name: 'file', filename: 'second.pdf', data: FILES.pdf() },
        { name: 'attachment', filename: 'x.png', data: FILES.png() },
        { name: '', value: 'x' },
        { name: 'file', filename: '', data: 'text where a file belongs' },
      ]),
    );
  },
  'form: file content or name not what it claims'(d, rng) {
    const file = d.form?.find((p) => 'filename' in p) as { filename: string; contentType?: string; data: Buffer | string } | undefined;
    if (!file) return;
    file.data = rng.pick<Buffer | string>([Buffer.alloc(0), 'GIF89a', Buffer.from(Array.from({ length: rng.int(1, 4096) }, () => rng.int(0, 255))), FILES.png().subarray(0, 4), '%PDF']);
    file.contentType = rng.pick(['image/png', 'image/jpeg', 'application/pdf', 'text/csv', '', 'image/png; charset=utf-16']);
    file.filename = rng.pick([file.filename, '../../etc/passwd', 'a\u0000.png', 'x'.repeat(rng.int(300, 3000)), '💩.pdf', '"quoted".png']);
  },
  'form: malformed multipart'(d, rng) {
    if (!d.form) return;
    const { payload, headers } = multipartForm(d.form, 'BOUNDARY');
    const text = payload.toString('latin1');
    d.rawBody = Buffer.from(
      rng.pick([
        text.slice(0, rng.int(0, text.length - 1)),
        text.replace(/--BOUNDARY--\r\n$/, ''),
        text.replaceAll('BOUNDARY', 'OTHER'),
        text.replace('Content-Disposition: form-data; ', 'Content-Disposition: '),
        text.replace(/\r\n/g, '\n'),
        `--BOUNDARY\r\n${'X-Header: v\r\n'.repeat(3000)}\r\nx\r\n--BOUNDARY--\r\n`,
        `${'--BOUNDARY\r\nContent-Disposition: form-data; name="f"\r\n\r\nv\r\n'.repeat(rng.int(50, 500))}--BOUNDARY--\r\n`,
      ]),
      'latin1',
    );
    d.headers['content-type'] = rng.pick([headers['content-type']!, 'multipart/form-data', 'multipart/form-data; boundary=', 'multipart/mixed; boundary=BOUNDARY', `multipart/form-data; boundary=${'B'.repeat(200)}`]);
  },
  'content type: odd'(d, rng) {
    if (d.body === undefined && d.rawBody === undefined) d.body = {};
    d.headers['content-type'] = rng.pick(ODD_CONTENT_TYPES);
  },
  'content type: missing'(d) {
    if (d.body === undefined && d.rawBody === undefined) return;
    d.headers['content-type'] = '';
  },
  'header: odd values'(d, rng) {
    const [name, value] = rng.pick<[string, string]>([
      ['x-request-id', 'x'.repeat(rng.int(100, 8000))],
      ['x-request-id', '💩 <script>'],
      ['x-request-id', ''],
      ['accept', 'text/html'],
      ['accept', 'application/xml;q=1, */*;q=0'],
      ['accept-charset', 'utf-16'],
      ['accept-encoding', 'gzip;q=0, identity;q=0'],
      ['content-encoding', 'gzip'],
      ['content-encoding', 'br, deflate'],
      ['x-forwarded-for', '127.0.0.1, ::1'],
      ['x-http-method-override', 'DELETE'],
      ['if-none-match', '*'],
      ['range', 'bytes=0-1,5-'],
      ['cookie', 'a=b; __proto__=x'],
      ['idempotency-key', 'x'.repeat(300)],
    ]);
    d.headers[name] = value;
  },
  'authorization: odd'(d, rng, ctx) {
    d.headers.authorization = rng.pick([
      '',
      'Basic',
      'Basic ',
      'Basic ===',
      'Basic !!!!',
      `Basic ${b64(Buffer.from(Array.from({ length: rng.int(1, 64) }, () => rng.int(0, 255))))}`,
      `Basic ${b64(`${ctx.clientId}\u0000:${ctx.secret}`)}`,
      `Basic ${b64(`${ctx.clientId}:${ctx.secret}\u0000`)}`,
      `Basic ${b64(`\u0000${ctx.clientId}:${ctx.secret}`)}`,
      `Basic ${b64(`${ctx.clientId}${rng.pick(CONTROL)}x:${ctx.secret}`)}`,
      `Basic ${b64(`:${ctx.secret}`)}`,
      `Basic ${b64(`${ctx.clientId}:`)}`,
      `Basic ${b64(ctx.clientId)}`,
      `Basic ${b64(`${ctx.clientId}:wrong`)}`,
      `Basic ${b64(`${ctx.tokenId}:${ctx.secret}`)}`,
      `Basic ${b64(`Token:${ctx.clientId}:${ctx.secret}`)}`,
      `Basic ${b64(`${'💩'.repeat(20)}:${ctx.secret}`)}`,
      `Basic ${b64(`${"' OR '1'='1"}:x`)}`,
      `Basic ${'A'.repeat(rng.int(400, 5000))}`,
      `basic ${b64(`${ctx.clientId}:${ctx.secret}`)}`,
      `BASIC   ${b64(`${ctx.clientId}:${ctx.secret}`)}`,
      `Basic ${b64(`${ctx.clientId}:${ctx.secret}`)} extra`,
      'Bearer abc.def.ghi',
      'bearer',
      'Digest username="x", realm="payments"',
      'Negotiate YII=',
      `${ctx.auth}, ${ctx.auth}`,
    ]);
  },
  'method: wrong'(d, rng) {
    d.method = rng.pick(METHODS);
  },
  'path: odd'(d, rng) {
    d.path = rng.pick([
      `${d.path}/`,
      d.path.replace(BASE, `${BASE}/`),
      d.path.replace(BASE, '/2025-01-01'),
      d.path.replace(BASE, ''),
      d.path.toUpperCase(),
      `${d.path}/%00`,
      `${d.path}%00`,
      `${d.path}/${'x'.repeat(rng.int(100, 6000))}`,
      `${BASE}/docs/static/..%2f..%2f..%2fpackage.json`,
      `${BASE}/docs/static/%2e%2e%2f%2e%2e%2fpackage.json`,
      `${BASE}/docs/static/%00`,
      `${BASE}/docs/static/${'a/'.repeat(500)}x.js`,
      `${BASE}/docs/static/%E0%A4%A`,
      `${BASE}/openapi.json%00`,
      '/healthz/..%2f2025-10-13%2ftokens',
      `${BASE}/%2e%2e/healthz`,
      '/',
      '*',
    ]);
  },
};

const MUTATION_NAMES = Object.keys(MUTATIONS);

function draftOf(template: Template): Draft {
  return {
    method: template.method,
    path: template.path,
    id: template.id,
    query: Object.entries(template.query ?? {}).map(([k, v]) => `${enc(k)}=${enc(v)}`),
    body: template.body === undefined ? undefined : structuredClone(template.body),
    form: template.form?.map((p) => ({ ...p })),
    rawBody: undefined,
    headers: {},
    mutations: [],
  };
}

function urlOf(d: Draft): string {
  const path = d.id === undefined ? d.path : d.path.replace(':id', d.id);
  return d.query.length > 0 ? `${path}?${d.query.join('&')}` : path;
}

/** What must never reach a client: the framework's codes, stack frames, SQL or driver text, this machine's paths. */
const INTERNALS = /FST_|ERR_[A-Z_]{4,}|\n\s+at |\(\S+\.[cm]?[jt]s:\d+:\d+\)|SQLITE|better-sqlite|kysely|postgres|syntax error at|relation "|violates|duplicate key|node_modules|TypeError|RangeError|ReferenceError|undefined is not|Cannot read prop/i;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Problems with one answer; empty when it is as the service promises. */
function problemsOf(method: string, answer: Answer): string[] {
  const out: string[] = [];
  const { status, body } = answer;
  if (status >= 500) out.push(`status ${status}`);
  if (status >= 300 && status < 400) {
    // The docs page's own redirect (to its canonical URL) is the one 3xx the service sends.
    if (typeof answer.headers.location !== 'string' || !answer.headers.location.startsWith(`${BASE}/docs`)) out.push(`redirect ${status} to ${String(answer.headers.location)}`);
    return out;
  }
  if (status >= 400) {
    if (!/^application\/json/.test(String(answer.headers['content-type']))) out.push(`content type ${String(answer.headers['content-type'])}`);
    if (method === 'HEAD') {
      if (body !== '') out.push('a HEAD answer with a body');
    } else {
      let parsed: Record<string, unknown> | undefined;
      try {
        parsed = JSON.parse(body) as Record<string, unknown>;
      } catch {
        out.push('body is not JSON');
      }
      if (parsed) {
        const extra = Object.keys(parsed).filter((k) => !['status', 'code', 'message', 'details'].includes(k));
        if (extra.length > 0) out.push(`extra members ${extra.join(',')}`);
        if (parsed.status !== status) out.push(`status member ${String(parsed.status)}`);
        if (!catalogueCodes(status).includes(String(parsed.code))) out.push(`code ${String(parsed.code)} is not a code of ${status}`);
        if (typeof parsed.message !== 'string' || parsed.message === '') out.push('no message');
        if ('details' in parsed && (typeof parsed.details !== 'object' || parsed.details === null)) out.push('details not an object');
      }
    }
  }
  if (status >= 400 || status === 0) {
    if (INTERNALS.test(body)) out.push(`internals: ${INTERNALS.exec(body)![0]}`);
    if (body.includes(process.cwd())) out.push('a path of this machine');
  }
  return out;
}

function templatesFor(
  ids: {
    customer: string; deletable: string; account: string; owner: string; card: string; transaction: string; token: string;
    revealPage: string; verification: string; pending: string; externalAccount: string; wallet: string; platformExternalAccount: string;
    document: string; deletableDocument: string; importJob: string; contact: string; kycPage: string; transfer: string;
    quote: string; executableQuote: string; realtimeQuote: string; invitation: string; inviterUma: string; btcAccount: string;
  },
  body: { customer: unknown; owner: unknown },
): Record<string, Template> {
  const documentForm = (holder?: string): FormPart[] => [
    ...(holder ? [{ name: 'documentHolder', value: holder }] : []),
    { name: 'documentType', value: 'PASSPORT' },
    { name: 'country', value: 'US' },
    { name: 'side', value: 'FRONT' },
    { name: 'file', filename: 'passport.png', contentType: 'image/png', data: FILES.png(256) },
  ];
  const sim = (kind: string, b: unknown): Template => ({ method: 'POST', path: `${BASE}/sandbox/cards/:id/simulate/${kind}`, id: ids.card, body: b });
  const external = (family: 'customers' | 'platform', method: string, suffix: string, id: string, b?: unknown): Template => ({ method, path: `${BASE}/${family}/external-accounts/:id${suffix}`, id, ...(b === undefined ? {} : { body: b }) });
  return {
    'GET /exchange-rates': { method: 'GET', path: `${BASE}/exchange-rates`, query: { sourceCurrency: 'USD', destinationCurrency: 'EUR', sendingAmount: '10000' } },
    'PUT /sandbox/exchange-rates/:sourceCurrency/:destinationCurrency': { method: 'PUT', path: `${BASE}/sandbox/exchange-rates/USD/:id`, id: 'MXN', body: { exchangeRate: '0.05' } },
    'POST /quotes': { method: 'POST', path: `${BASE}/quotes`, body: { source: { sourceType: 'ACCOUNT', accountId: ids.account }, destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$success.eur@sandbox.uma.money', currency: 'EUR' }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 5000 } },
    'GET /quotes/:quoteId': { method: 'GET', path: `${BASE}/quotes/:id`, id: ids.quote },
    'POST /sandbox/send': { method: 'POST', path: `${BASE}/sandbox/send`, body: { quoteId: ids.realtimeQuote, currencyCode: 'USD' } },
    'POST /sandbox/uma/receive': { method: 'POST', path: `${BASE}/sandbox/uma/receive`, body: { senderUmaAddress: '$success.usd@sandbox.uma.money', customerId: ids.customer, receivingCurrencyCode: 'USD', receivingCurrencyAmount: 100 } },
    'POST /quotes/:quoteId/execute': { method: 'POST', path: `${BASE}/quotes/:id/execute`, id: ids.executableQuote },
    'GET /receiver/uma/:receiverUmaAddress': { method: 'GET', path: `${BASE}/receiver/uma/:id`, id: encodeURIComponent('$success.usd@sandbox.uma.money'), query: { customerId: ids.customer } },
    'GET /receiver/external-account/:accountId': { method: 'GET', path: `${BASE}/receiver/external-account/:id`, id: ids.externalAccount, query: { senderUmaAddress: '$me@uma.example.com' } },
    'POST /invitations': { method: 'POST', path: `${BASE}/invitations`, body: { inviterUma: ids.inviterUma, firstName: 'Ada', amountToSend: 100, expiresAt: '2099-01-01T00:00:00Z' } },
    'GET /invitations/:invitationCode': { method: 'GET', path: `${BASE}/invitations/:id`, id: ids.invitation },
    'POST /invitations/:invitationCode/claim': { method: 'POST', path: `${BASE}/invitations/:id/claim`, id: ids.invitation, body: { inviteeUma: '$friend@wallet.example' } },
    'POST /invitations/:invitationCode/cancel': { method: 'POST', path: `${BASE}/invitations/:id/cancel`, id: ids.invitation },
    'GET /uma-providers': { method: 'GET', path: `${BASE}/uma-providers`, query: { countryCode: 'US', currencyCode: 'USD', hasBlockedProviders: 'true', sortOrder: 'asc', limit: '2', cursor: '1' } },
    'GET /discoveries': { method: 'GET', path: `${BASE}/discoveries`, query: { country: 'PH', currency: 'PHP' } },
    'GET /vasps': { method: 'GET', path: `${BASE}/vasps`, query: { limit: '2', cursor: '2' } },
    'POST /crypto/estimate-withdrawal-fee': { method: 'POST', path: `${BASE}/crypto/estimate-withdrawal-fee`, body: { internalAccountId: ids.btcAccount, currency: 'BTC', cryptoNetwork: 'BITCOIN', amount: 100000, destinationAddress: 'tb1qexample' } },
    'GET /customers/external-accounts': { method: 'GET', path: `${BASE}/customers/external-accounts`, query: { customerId: ids.customer, currency: 'USD', limit: '2' } },
    'POST /customers/external-accounts': { method: 'POST', path: `${BASE}/customers/external-accounts`, body: { customerId: ids.customer, ...usdAccount('246810') } },
    'GET /customers/external-accounts/:externalAccountId': external('customers', 'GET', '', ids.externalAccount),
    'DELETE /customers/external-accounts/:externalAccountId': external('customers', 'DELETE', '', ids.externalAccount),
    'POST /customers/external-accounts/:externalAccountId/challenge': external('customers', 'POST', '/challenge', ids.wallet, { method: 'WALLET_SIGNATURE' }),
    'POST /customers/external-accounts/:externalAccountId/verify': external('customers', 'POST', '/verify', ids.wallet, { signature: '0x52d75f01' }),
    'GET /platform/external-accounts': { method: 'GET', path: `${BASE}/platform/external-accounts`, query: { currency: 'EUR', limit: '2' } },
    'POST /platform/external-accounts': { method: 'POST', path: `${BASE}/platform/external-accounts`, body: eurAccount(ibanEndingIn('468')) },
    'GET /platform/external-accounts/:externalAccountId': external('platform', 'GET', '', ids.platformExternalAccount),
    'DELETE /platform/external-accounts/:externalAccountId': external('platform', 'DELETE', '', ids.platformExternalAccount),
    'POST /platform/external-accounts/:externalAccountId/challenge': external('platform', 'POST', '/challenge', ids.platformExternalAccount, { method: 'LIVENESS' }),
    'POST /platform/external-accounts/:externalAccountId/verify': external('platform', 'POST', '/verify', ids.platformExternalAccount, { signature: 'abc', signatureScheme: 'bip137' }),
    'POST /customers': { method: 'POST', path: `${BASE}/customers`, body: body.customer },
    'GET /customers': { method: 'GET', path: `${BASE}/customers`, query: { limit: '5', customerType: 'BUSINESS' } },
    'GET /customers/:id': { method: 'GET', path: `${BASE}/customers/:id`, id: ids.customer },
    'PATCH /customers/:id': { method: 'PATCH', path: `${BASE}/customers/:id`, id: ids.customer, body: { customerType: 'BUSINESS', businessInfo: { doingBusinessAs: 'Acme' } } },
    'DELETE /customers/:id': { method: 'DELETE', path: `${BASE}/customers/:id`, id: ids.deletable },
    'GET /customers/end-user-terms': { method: 'GET', path: `${BASE}/customers/end-user-terms` },
    'GET /customers/internal-accounts': { method: 'GET', path: `${BASE}/customers/internal-accounts`, query: { customerId: ids.customer, currency: 'USD', type: 'INTERNAL_FIAT' } },
    'GET /platform/internal-accounts': { method: 'GET', path: `${BASE}/platform/internal-accounts`, query: { currency: 'USD', type: 'INTERNAL_FIAT' } },
    'POST /sandbox/internal-accounts/:accountId/fund': { method: 'POST', path: `${BASE}/sandbox/internal-accounts/:id/fund`, id: ids.account, body: { amount: 100 } },
    'POST /beneficial-owners': { method: 'POST', path: `${BASE}/beneficial-owners`, body: body.owner },
    'GET /beneficial-owners': { method: 'GET', path: `${BASE}/beneficial-owners`, query: { customerId: ids.customer, limit: '2' } },
    'GET /beneficial-owners/:id': { method: 'GET', path: `${BASE}/beneficial-owners/:id`, id: ids.owner },
    'PATCH /beneficial-owners/:id': { method: 'PATCH', path: `${BASE}/beneficial-owners/:id`, id: ids.owner, body: { ownershipPercentage: 30, personalInfo: { lastName: 'Doe' } } },
    'POST /customers/bulk/csv': {
      method: 'POST',
      path: `${BASE}/customers/bulk/csv`,
      form: [{ name: 'file', filename: 'customers.csv', contentType: 'text/csv', data: '\ufeffcustomerType,fullName,email\r\nINDIVIDUAL,"Lovelace, Ada",ada@example.com\r\n' }],
    },
    'GET /customers/bulk/jobs/:id': { method: 'GET', path: `${BASE}/customers/bulk/jobs/:id`, id: ids.importJob },
    'POST /documents': { method: 'POST', path: `${BASE}/documents`, form: documentForm(ids.owner) },
    'GET /documents': { method: 'GET', path: `${BASE}/documents`, query: { documentHolder: ids.customer, limit: '2' } },
    'GET /documents/:id': { method: 'GET', path: `${BASE}/documents/:id`, id: ids.document },
    'PUT /documents/:id': { method: 'PUT', path: `${BASE}/documents/:id`, id: ids.document, form: documentForm() },
    'DELETE /documents/:id': { method: 'DELETE', path: `${BASE}/documents/:id`, id: ids.deletableDocument },
    'POST /cards': { method: 'POST', path: `${BASE}/cards`, body: { cardholderId: ids.customer, form: 'VIRTUAL', platformCardId: 'pc-1', fundingSources: [ids.account] } },
    'PATCH /cards/:id': { method: 'PATCH', path: `${BASE}/cards/:id`, id: ids.card, body: { fundingSources: [ids.account] } },
    'POST /sandbox/customers/:customerId/kyc': { method: 'POST', path: `${BASE}/sandbox/customers/:id/kyc`, id: ids.customer, body: { status: 'APPROVED' } },
    'POST /customers/:customerId/verify-email': { method: 'POST', path: `${BASE}/customers/:id/verify-email`, id: ids.contact },
    'POST /customers/:customerId/verify-email/confirm': { method: 'POST', path: `${BASE}/customers/:id/verify-email/confirm`, id: ids.contact, body: { code: '123456' } },
    'POST /customers/:customerId/verify-phone': { method: 'POST', path: `${BASE}/customers/:id/verify-phone`, id: ids.contact },
    'POST /customers/:customerId/verify-phone/confirm': { method: 'POST', path: `${BASE}/customers/:id/verify-phone/confirm`, id: ids.contact, body: { code: '123456' } },
    'POST /customers/:customerId/kyc-link': { method: 'POST', path: `${BASE}/customers/:id/kyc-link`, id: ids.pending, body: { redirectUri: 'https://app.example.com/done' } },
    'GET /sandbox-pages/kyc/:token': { method: 'GET', path: '/sandbox-pages/kyc/:id', id: ids.kycPage.split('/').pop()! },
    'POST /sandbox-pages/kyc/:token': { method: 'POST', path: '/sandbox-pages/kyc/:id', id: ids.kycPage.split('/').pop()!, body: { outcome: 'PENDING' } },
    'POST /verifications': { method: 'POST', path: `${BASE}/verifications`, body: { customerId: ids.pending } },
    'GET /verifications': { method: 'GET', path: `${BASE}/verifications`, query: { customerId: ids.customer, verificationStatus: 'APPROVED', limit: '2' } },
    'GET /verifications/:verificationId': { method: 'GET', path: `${BASE}/verifications/:id`, id: ids.verification },
    'GET /cards': { method: 'GET', path: `${BASE}/cards`, query: { cardholderId: ids.customer, limit: '3' } },
    'GET /cards/:id': { method: 'GET', path: `${BASE}/cards/:id`, id: ids.card },
    'POST /cards/:id/reveal': { method: 'POST', path: `${BASE}/cards/:id/reveal`, id: ids.card },
    'GET /sandbox-pages/cards/reveal/:token': { method: 'GET', path: '/sandbox-pages/cards/reveal/:id', id: ids.revealPage.split('/').pop()! },
    'GET /transactions': { method: 'GET', path: `${BASE}/transactions`, query: { cardId: ids.card, limit: '3' } },
    'GET /transactions/:id': { method: 'GET', path: `${BASE}/transactions/:id`, id: ids.transaction },
    'POST /transfer-in': { method: 'POST', path: `${BASE}/transfer-in`, body: { source: { accountId: ids.externalAccount }, destination: { accountId: ids.account }, amount: 1250 } },
    'POST /transfer-out': {
      method: 'POST',
      path: `${BASE}/transfer-out`,
      body: { source: { accountId: ids.account }, destination: { accountId: ids.externalAccount, paymentRail: 'ACH' }, amount: 1250, remittanceInformation: 'INV-1', purposeOfPayment: 'GOODS_OR_SERVICES' },
    },
    'POST /transactions/:transactionId/confirm': { method: 'POST', path: `${BASE}/transactions/:id/confirm`, id: ids.transfer, body: { receiptDeliveryConfirmedAt: '2025-08-15T14:31:00Z' } },
    'POST /transactions/:transactionId/approve': { method: 'POST', path: `${BASE}/transactions/:id/approve`, id: ids.transfer, body: { receiverCustomerInfo: { FULL_NAME: 'Ada' } } },
    'POST /transactions/:transactionId/reject': { method: 'POST', path: `${BASE}/transactions/:id/reject`, id: ids.transfer, body: { reason: 'RESTRICTED_JURISDICTION' } },
    'POST /transactions/:transactionId/cancel': { method: 'POST', path: `${BASE}/transactions/:id/cancel`, id: ids.transfer, body: { reason: 'REQUESTED_AFTER_HOURS' } },
    'POST /sandbox/cards/:id/simulate/authorization': sim('authorization', { amount: 1250, currency: { code: 'USD' }, merchant: { descriptor: 'BLUE BOTTLE', mcc: '5814', country: 'US' } }),
    'POST /sandbox/cards/:id/simulate/clearing': sim('clearing', { cardTransactionId: ids.transaction, amount: 100 }),
    'POST /sandbox/cards/:id/simulate/return': sim('return', { cardTransactionId: ids.transaction, amount: 100 }),
    'POST /sandbox/cards/:id/simulate/authorization_expiry': sim('authorization_expiry', { cardTransactionId: ids.transaction }),
    'POST /sandbox/cards/:id/simulate/return_reversal': sim('return_reversal', { cardTransactionId: ids.transaction }),
    'POST /sandbox/cards/:id/simulate/authorization_advice': sim('authorization_advice', { cardTransactionId: ids.transaction, amount: 2000 }),
    'POST /sandbox/cards/:id/simulate/balance_inquiry': sim('balance_inquiry', { merchant: { descriptor: 'SHELL OIL', mcc: '5541', country: 'US' } }),
    'POST /sandbox/cards/:id/simulate/credit_authorization': sim('credit_authorization', { amount: 2500, currency: { code: 'USD' }, merchant: { descriptor: 'ACME MARKETPLACE' } }),
    'POST /sandbox/cards/:id/simulate/credit_authorization_advice': sim('credit_authorization_advice', { amount: 2500, currency: { code: 'USD' }, merchant: { descriptor: 'ACME MARKETPLACE' } }),
    'POST /sandbox/cards/:id/simulate/financial_authorization': sim('financial_authorization', { amount: 8000, currency: { code: 'USD' }, merchant: { descriptor: 'ATM WITHDRAWAL', mcc: '6011' } }),
    'POST /sandbox/cards/:id/simulate/financial_credit_authorization': sim('financial_credit_authorization', { amount: 4000, currency: { code: 'USD' }, merchant: { descriptor: 'ACME PAYOUTS' } }),
    'POST /sandbox/webhooks/test': { method: 'POST', path: `${BASE}/sandbox/webhooks/test` },
    'GET /sandbox/clock': { method: 'GET', path: `${BASE}/sandbox/clock` },
    'POST /sandbox/clock/advance': { method: 'POST', path: `${BASE}/sandbox/clock/advance`, body: { seconds: 60 } },
    'POST /tokens': { method: 'POST', path: `${BASE}/tokens`, body: { name: 'ci', permissions: ['VIEW'] } },
    'GET /tokens': { method: 'GET', path: `${BASE}/tokens`, query: { limit: '2', name: 'ci' } },
    'GET /tokens/:id': { method: 'GET', path: `${BASE}/tokens/:id`, id: ids.token },
    'DELETE /tokens/:id': { method: 'DELETE', path: `${BASE}/tokens/:id`, id: ids.token },
    'GET /config': { method: 'GET', path: `${BASE}/config` },
    'PATCH /config': { method: 'PATCH', path: `${BASE}/config`, body: { ...everyConfigField, webhookEndpoint: 'http://127.0.0.1:9/hooks' } },
    'POST /config/webhook-secret/rotate': { method: 'POST', path: `${BASE}/config/webhook-secret/rotate` },
    'GET /webhook-events': { method: 'GET', path: `${BASE}/webhook-events`, query: { limit: '3', deliveryState: 'PENDING' } },
    'GET /webhook-events/:id': { method: 'GET', path: `${BASE}/webhook-events/:id`, id: 'Webhook:0194f5b3-0000-7000-8000-000000000000' },
    'POST /webhook-events/:id/redeliver': { method: 'POST', path: `${BASE}/webhook-events/:id/redeliver`, id: 'Webhook:0194f5b3-0000-7000-8000-000000000000' },
    'POST /webhook-events/recover': { method: 'POST', path: `${BASE}/webhook-events/recover`, body: { since: '2025-01-01T00:00:00Z', until: '2030-01-01T00:00:00Z' } },
    'POST /webhook-events/:id/signed-delivery': { method: 'POST', path: `${BASE}/webhook-events/:id/signed-delivery`, id: 'Webhook:0194f5b3-0000-7000-8000-000000000000' },
    'GET /request-logs': { method: 'GET', path: `${BASE}/request-logs`, query: { limit: '3', method: 'GET', status: '200' } },
    'GET /request-logs/:id': { method: 'GET', path: `${BASE}/request-logs/:id`, id: '00000000-0000-4000-8000-000000000000' },
    'POST /webhook-events/replay-missing': { method: 'POST', path: `${BASE}/webhook-events/replay-missing`, body: { since: '2025-01-01T00:00:00Z' } },
    'GET /healthz': { method: 'GET', path: '/healthz' },
    'GET /openapi.json': { method: 'GET', path: `${BASE}/openapi.json` },
    'GET /docs': { method: 'GET', path: `${BASE}/docs` },
  };
}

/** Raw requests only a real socket can send: the HTTP parser's and the runtime's own refusals. */
function rawCases(auth: string): [string, string | Buffer][] {
  const tokens = `${BASE}/tokens`;
  return [
    ['Content-Length with Transfer-Encoding', `POST ${tokens} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`],
    ['Expect: bogus (GET)', `GET ${tokens} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nExpect: bogus\r\n\r\n`],
    ['Expect: bogus (POST)', `POST ${tokens} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nExpect: bogus\r\n\r\n{}`],
    ['oversize headers', `GET ${tokens} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`],
    ['many headers', `GET ${tokens} HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 3000 }, (_, i) => `X-H${i}: v`).join('\r\n')}\r\n\r\n`],
    ['oversize URL', `GET ${tokens}?name=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['no Host', `GET ${tokens} HTTP/1.1\r\nAuthorization: ${auth}\r\n\r\n`],
    ['two Hosts', `GET ${tokens} HTTP/1.1\r\nHost: a\r\nHost: b\r\nAuthorization: ${auth}\r\n\r\n`],
    ['HTTP/1.0 without Host', `GET /healthz HTTP/1.0\r\n\r\n`],
    ['malformed request line', 'GARBAGE\r\n\r\n'],
    ['request line without version', `GET ${tokens}\r\n\r\n`],
    ['unknown HTTP version', `GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n`],
    ['extra token in request line', `GET /healthz HTTP/1.1 extra\r\nHost: x\r\n\r\n`],
    ['invalid method characters', `G@T /healthz HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['unknown method', `BREW /healthz HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['NUL in the request target', `GET ${BASE}/customers/a\u0000b HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['space in the request target', `GET ${BASE}/customers/a b HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['NUL in a header value', `GET ${tokens} HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n`],
    ['control character in a header value', `GET ${tokens} HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\n\r\n`],
    ['control character in the Authorization header', `GET ${tokens} HTTP/1.1\r\nHost: x\r\nAuthorization: Basic\u0001${auth.slice(6)}\r\n\r\n`],
    ['DEL in the Authorization header', `GET ${tokens} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\u007f\r\n\r\n`],
    ['bytes above 0x7f in a header value', Buffer.concat([Buffer.from(`GET ${tokens} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nX-A: `), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('\r\n\r\n')])],
    ['header without a colon', `GET /healthz HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n`],
    ['space before the colon', `GET /healthz HTTP/1.1\r\nHost : x\r\n\r\n`],
    ['invalid header name', `GET /healthz HTTP/1.1\r\nHost: x\r\nX(A): 1\r\n\r\n`],
    ['obsolete line folding', `GET ${tokens} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nX-A: a\r\n  b\r\n\r\n`],
    ['bare LF line endings', `GET /healthz HTTP/1.1\nHost: x\n\n`],
    ['bare CR', `GET /healthz HTTP/1.1\rHost: x\r\r`],
    ['two differing Content-Lengths', `POST ${tokens} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`],
    ['negative Content-Length', `POST ${tokens} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: -1\r\n\r\n{}`],
    ['non-numeric Content-Length', `POST ${tokens} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}`],
    ['huge Content-Length', `POST ${tokens} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nContent-Length: 99999999999999999999\r\n\r\n{}`],
    ['Content-Length over the body limit', `POST ${tokens} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\n\r\n{}`],
    ['bad chunk size', `POST ${tokens} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`],
    ['chunked body over the limit', `POST ${tokens} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${'100000\r\n' + ' '.repeat(0x100000) + '\r\n'}100\r\n${' '.repeat(0x100)}\r\n0\r\n\r\n`],
    ['Transfer-Encoding gzip', `POST ${tokens} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip\r\n\r\n{}`],
    ['Transfer-Encoding chunked, identity', `POST ${tokens} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked, identity\r\n\r\n2\r\n{}\r\n0\r\n\r\n`],
    ['Content-Encoding gzip with plain bytes', `POST ${tokens} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: 2\r\n\r\n{}`],
    ['traversal with dots', `GET ${BASE}/docs/static/../../../package.json HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['traversal with encoded dots', `GET ${BASE}/docs/static/%2e%2e/%2e%2e/%2e%2e/package.json HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['traversal with encoded slashes', `GET ${BASE}/docs/static/..%2f..%2f..%2fpackage.json HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['traversal with backslashes', `GET ${BASE}/docs/static/..%5c..%5c..%5cpackage.json HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['traversal with overlong UTF-8', `GET ${BASE}/docs/static/%c0%ae%c0%ae/%c0%ae%c0%ae/package.json HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['traversal to the source', `GET ${BASE}/docs/static/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/src/app.ts HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['NUL in a docs path', `GET ${BASE}/docs/static/index.html%00.js HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['absolute-form target', `GET http://x${tokens} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\n\r\n`],
    ['asterisk-form target', `OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n`],
    ['CONNECT', `CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n`],
    ['Upgrade to websocket', `GET ${tokens} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`],
    ['HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'],
    ['TLS hello on the plain port', Buffer.from([0x16, 0x03, 0x01, 0x00, 0xa5, 0x01, 0x00, 0x00, 0xa1, 0x03, 0x03])],
  ];
}

/** Sends raw bytes on a fresh connection and reads until one whole answer has come, the server closes it, or a quiet second passes. */
function sendRaw(port: number, bytes: string | Buffer): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const s = connect(port, '127.0.0.1', () => s.write(bytes));
    let quiet = setTimeout(() => s.destroy(), 3_000);
    s.on('data', (c: Buffer) => {
      chunks.push(c);
      clearTimeout(quiet);
      // One whole answer is all a case needs; a keep-alive connection would otherwise stay open.
      if (answerComplete(Buffer.concat(chunks).toString('latin1'))) s.destroy();
      else quiet = setTimeout(() => s.destroy(), 1_000);
    });
    const done = () => (clearTimeout(quiet), resolve(Buffer.concat(chunks).toString('latin1')));
    s.on('close', done);
    s.on('error', () => undefined);
  });
}

function answerComplete(raw: string): boolean {
  const head = raw.indexOf('\r\n\r\n');
  const length = /\r\ncontent-length: *(\d+)/i.exec(raw.slice(0, head));
  return head >= 0 && length !== null && Buffer.byteLength(raw.slice(head + 4), 'latin1') >= Number(length[1]);
}

/** The first response in raw bytes: status, headers, body by Content-Length. */
function parseRaw(raw: string): Answer | undefined {
  const head = raw.indexOf('\r\n\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(raw);
  if (!m || head < 0) return undefined;
  const headers: Record<string, string> = {};
  for (const line of raw.slice(0, head).split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  return { status: Number(m[1]), headers, body: Buffer.from(raw.slice(head + 4), 'latin1').subarray(0, length).toString('utf8') };
}

async function fixtures(t: TestApp) {
  const customer = await createBusiness(t.caller, 1);
  const owner = await t.caller.req('POST', '/beneficial-owners', ownerInput(customer));
  const cardId = (await activeCard(t, t.caller, customer)).id as string;
  const auth = await t.caller.req('POST', `/sandbox/cards/${cardId}/simulate/authorization`, { amount: 5000, currency: { code: 'USD' }, merchant: { descriptor: 'ACME' } });
  const token = await t.caller.req('POST', '/tokens', { name: 'to revoke', permissions: ['VIEW'] });
  const accounts = await t.caller.req('GET', `/customers/internal-accounts?customerId=${customer}`);
  const reveal = await t.caller.req('POST', `/cards/${cardId}/reveal`);
  const externalAccount = await t.caller.req('POST', '/customers/external-accounts', { customerId: customer, ...usdAccount('13579') });
  const wallet = await t.caller.req('POST', '/customers/external-accounts', { customerId: customer, ...walletAccount() });
  const platformExternalAccount = await t.caller.req('POST', '/platform/external-accounts', usdAccount('97531'));
  for (const res of [owner, auth, token, accounts, reveal, externalAccount, wallet, platformExternalAccount]) expect(res.statusCode, res.body).toBeLessThan(300);
  const deletable = await createBusiness(t.caller, 2);
  const verification = await t.caller.req('POST', '/verifications', { customerId: await createBusiness(t.caller, 3) });
  expect(verification.statusCode, verification.body).toBe(200);
  // A 001 individual stays PENDING whatever it is submitted with: never refused for its state.
  const pending = await t.caller.req('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Pat Pending 001' });
  expect(pending.statusCode, pending.body).toBe(201);
  const upload = async () => {
    const form = multipartForm([
      { name: 'documentHolder', value: customer },
      { name: 'documentType', value: 'CERTIFICATE_OF_INCORPORATION' },
      { name: 'country', value: 'US' },
      { name: 'file', filename: 'certificate.pdf', data: FILES.pdf() },
    ]);
    const res = await t.caller.req('POST', '/documents', form.payload, form.headers);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };
  const document = await upload();
  const deletableDocument = await upload();
  const csv = multipartForm([{ name: 'file', filename: 'c.csv', data: 'customerType\nINDIVIDUAL\n' }]);
  const imported = await t.caller.req('POST', '/customers/bulk/csv', csv.payload, csv.headers);
  expect(imported.statusCode, imported.body).toBe(202);
  // An individual of a European Economic Area region: its email and phone need verifying.
  const contact = await t.caller.req('POST', '/customers', { customerType: 'INDIVIDUAL', region: 'FR', email: 'c@example.fr', phoneNumber: '+33612345678' });
  expect(contact.statusCode, contact.body).toBe(201);
  const kycLink = await t.caller.req('POST', `/customers/${pending.json().id}/kyc-link`);
  expect(kycLink.statusCode, kycLink.body).toBe(201);
  const inviterUma = (await t.caller.req('GET', `/customers/${customer}`)).json().umaAddress as string;
  const quote = await t.caller.req('POST', '/quotes', { source: { sourceType: 'ACCOUNT', accountId: accounts.json().data[0].id }, destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$success.mxn@sandbox.uma.money' }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 5000 });
  const invitation = await t.caller.req('POST', '/invitations', { inviterUma });
  const euroPayee = await t.caller.req('POST', '/customers/external-accounts', { customerId: customer, ...eurAccount(ibanEndingIn('000')) });
  expect(euroPayee.statusCode, euroPayee.body).toBe(201);
  const executableQuote = await t.caller.req('POST', '/quotes', { source: { sourceType: 'ACCOUNT', accountId: accounts.json().data[0].id }, destination: { destinationType: 'ACCOUNT', accountId: euroPayee.json().id }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 5000 });
  expect(executableQuote.statusCode, executableQuote.body).toBe(201);
  const realtimeQuote = await t.caller.req('POST', '/quotes', { source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId: customer }, destination: { destinationType: 'ACCOUNT', accountId: euroPayee.json().id }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 5000 });
  expect(realtimeQuote.statusCode, realtimeQuote.body).toBe(201);
  const btcConfig = await t.caller.req('PATCH', '/config', { supportedCurrencies: ['USD', 'BTC'].map((code) => ({ currencyCode: code, minAmount: 1, maxAmount: 1_000_000_000, enabledTransactionTypes: ['INCOMING', 'OUTGOING'], requiredCounterpartyFields: [] })) });
  expect(btcConfig.statusCode, btcConfig.body).toBe(200);
  const btcHolder = (await t.caller.req('POST', '/customers', { customerType: 'INDIVIDUAL', currencies: ['BTC'] })).json().id as string;
  const btcAccount = (await t.caller.req('GET', `/customers/internal-accounts?customerId=${btcHolder}&currency=BTC`)).json().data[0].id as string;
  for (const res of [quote, invitation]) expect(res.statusCode, res.body).toBe(201);
  const transfer = await t.caller.req('POST', '/transfer-in', { source: { accountId: externalAccount.json().id }, destination: { accountId: accounts.json().data[0].id }, amount: 500 });
  expect(transfer.statusCode, transfer.body).toBe(201);
  const ids = {
    customer, deletable, account: accounts.json().data[0].id, owner: owner.json().id, card: cardId, transaction: auth.json().cardTransactionId, token: token.json().id,
    revealPage: new URL(reveal.json().panEmbedUrl).pathname, verification: verification.json().id, pending: pending.json().id,
    externalAccount: externalAccount.json().id, wallet: wallet.json().id, platformExternalAccount: platformExternalAccount.json().id,
    importJob: imported.json().jobId as string, document, deletableDocument, kycPage: new URL(kycLink.json().kycUrl).pathname, contact: contact.json().id,
    quote: quote.json().id, executableQuote: executableQuote.json().id, realtimeQuote: realtimeQuote.json().id, invitation: invitation.json().code, inviterUma, btcAccount,
    transfer: transfer.json().id,
  };
  return templatesFor(ids, { customer: businessCustomer(7), owner: ownerInput(customer, 7) });
}

describeEachEngine(
  'hostile sweep',
  (t) => {
    it(`${REQUESTS_PER_ENGINE} mutated requests to every operation: no 5xx, every error the Error object, no internals`, { timeout: 120_000 }, async () => {
      const started = Date.now();
      const templates = await fixtures(t);
      // Every registered operation has a template, so one added later is swept too.
      // (HEAD is GET's twin, reached by the method mutation.)
      const missing = t.app.apiOperations.filter((op) => op.method !== 'HEAD').map((op) => `${op.method} ${op.url.replace(BASE, '')}`).filter((key) => !(key in templates));
      expect(missing, 'operations without a template').toEqual([]);
      const keys = Object.keys(templates);
      // The OpenAPI document is large and the same for every request: checked unmutated above, and reached by the path mutations.
      const swept = keys.filter((key) => key !== 'GET /openapi.json');
      const ctx: Ctx = { auth: t.caller.auth, clientId: t.caller.clientId, tokenId: t.caller.tokenId, secret: t.caller.clientSecret };

      // Unmutated, each template is a request the service takes (or refuses for a reason of state, not of form).
      for (const key of keys) {
        const d = draftOf(templates[key]!);
        const form = d.form && multipartForm(d.form);
        const res = await t.app.inject({
          method: d.method as 'GET',
          url: urlOf(d),
          headers: { authorization: t.caller.auth, ...form?.headers },
          ...(form ? { payload: form.payload } : d.body === undefined ? {} : { payload: d.body as object }),
        });
        expect([200, 201, 202, 204, 400, 404, 409], `${key}: ${res.body.slice(0, 200)}`).toContain(res.statusCode);
        if (res.statusCode === 400) expect(res.json().code, key).not.toMatch(/INVALID_INPUT|INVALID_REQUEST_FORMAT/);
      }

      const rng = new Rng(SEED ^ (t.engine === 'sqlite' ? 1 : 2));
      const failures = new Map<string, { count: number; example: string }>();
      const seen = new Map<string, number>();
      const statuses = new Map<number, number>();
      let next = 0;
      const worker = async () => {
        while (next < REQUESTS_PER_ENGINE) {
          const n = next++;
          const key = swept[n % swept.length]!;
          const d = draftOf(templates[key]!);
          d.headers.authorization = ctx.auth;
          for (let i = rng.int(1, 3); i > 0; i--) {
            const name = rng.pick(MUTATION_NAMES);
            MUTATIONS[name]!(d, rng, ctx);
            d.mutations.push(name);
          }
          for (const m of d.mutations) seen.set(m, (seen.get(m) ?? 0) + 1);
          const form = d.rawBody === undefined && d.body === undefined && d.form ? multipartForm(d.form) : undefined;
          const payload = d.rawBody ?? form?.payload ?? (d.body === undefined ? undefined : JSON.stringify(d.body));
          if (payload !== undefined && d.headers['content-type'] === undefined) d.headers['content-type'] = form?.headers['content-type'] ?? rng.pick(JSON_TYPES);
          if (d.headers['content-type'] === '') delete d.headers['content-type'];
          const label = `#${n} ${key} [${d.mutations.join(' + ')}] ${d.method} ${urlOf(d).slice(0, 160)}`;
          const res = await t.app.inject({
            method: d.method as 'GET',
            url: urlOf(d),
            headers: d.headers,
            remoteAddress: `198.51.100.${n % 250}`,
            ...(payload === undefined ? {} : { payload }),
          });
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
          for (const p of problemsOf(d.method, { status: res.statusCode, headers: res.headers as Answer['headers'], body: res.body })) {
            const f = failures.get(p) ?? { count: 0, example: `${label} -> ${res.statusCode} ${res.body.slice(0, 300)}` };
            f.count++;
            failures.set(p, f);
          }
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
      const injected = Date.now() - started;

      // Over a real port: what only the HTTP parser and the runtime see.
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = t.app.server.address() as AddressInfo;
      let answeredRaw = 0;
      for (const [name, bytes] of rawCases(t.caller.auth)) {
        const raw = await sendRaw(port, bytes);
        const answer = parseRaw(raw);
        if (!answer) {
          failures.set(`raw: no HTTP answer to ${name}`, { count: 1, example: JSON.stringify(raw.slice(0, 200)) });
          continue;
        }
        answeredRaw++;
        if (/"devDependencies"|"scripts"|import \{/.test(answer.body)) failures.set(`raw: ${name} read a file`, { count: 1, example: answer.body.slice(0, 200) });
        for (const p of problemsOf(/^HEAD /.test(bytes.toString()) ? 'HEAD' : 'GET', answer)) {
          failures.set(`raw: ${name}: ${p}`, { count: 1, example: `${answer.status} ${answer.body.slice(0, 300)}` });
        }
      }

      const elapsed = Date.now() - started;
      const report = [...failures.entries()].map(([p, f]) => `${p} (x${f.count}): ${f.example}`);
      expect(report, `statuses ${JSON.stringify(Object.fromEntries(statuses))}; injected in ${injected} ms, all in ${elapsed} ms`).toEqual([]);
      // The sweep really swept: every mutation was used many times, and answers ranged widely.
      for (const name of MUTATION_NAMES) expect(seen.get(name) ?? 0, name).toBeGreaterThan(100);
      expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBe(REQUESTS_PER_ENGINE);
      for (const status of [200, 201, 400, 401, 404, 405, 413, 415]) expect(statuses.get(status) ?? 0, `answers ${status}`).toBeGreaterThan(0);
      expect(answeredRaw).toBe(rawCases(t.caller.auth).length);
    });
  },
  // Wrong secrets are among the mutations: the failed-authentication throttle (tested on its own) must not turn the rest into 429s.
  // The sweep is about answers, not durability: SQLite need not sync each of its commits to disk.
  { AUTH_FAILURES_PER_CLIENT: '1000000', AUTH_FAILURES_PER_ADDRESS: '1000000', SQLITE_SYNCHRONOUS: 'NORMAL' },
);
