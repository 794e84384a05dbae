import type { InjectOptions, LightMyRequestResponse } from 'fastify';

/** A browser's share of the console over inject: a cookie jar, and the CSRF token of the last page read. */
export class ConsoleClient {
  readonly cookies = new Map<string, string>();
  csrf = '';
  /** The last page's form token (see FormSubmissions); sent only when a post asks for it. */
  submission = '';

  constructor(private readonly app: { inject(options: InjectOptions): Promise<LightMyRequestResponse> }) {}

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const res = await this.app.inject({ method: 'GET', url, headers: { cookie: this.cookieHeader(), ...headers } });
    this.keep(res);
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1];
    if (token) this.csrf = token;
    const submission = /name="_submission" value="([^"]+)"/.exec(res.body)?.[1];
    if (submission) this.submission = submission;
    return res;
  }

  /** Sends a form as a browser would, with the page's CSRF token unless `csrf: false`, and with its form token if `submission`. */
  async post(url: string, form: Record<string, string>, { csrf = true, submission = false } = {}): Promise<LightMyRequestResponse> {
    const fields = { ...(csrf ? { _csrf: this.csrf } : {}), ...(submission ? { _submission: this.submission } : {}), ...form };
    const res = await this.app.inject({
      method: 'POST',
      url,
      headers: { cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(fields).toString(),
    });
    this.keep(res);
    return res;
  }

  /** Sends a form with a file as a browser would (multipart/form-data), with the page's CSRF token first. */
  async postMultipart(url: string, form: Record<string, string>, file?: { name: string; type: string; bytes: Buffer }): Promise<LightMyRequestResponse> {
    const boundary = `----console${Date.now()}`;
    const parts: Buffer[] = [];
    for (const [name, value] of Object.entries({ _csrf: this.csrf, ...form })) {
      parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
    }
    if (file) {
      parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`), file.bytes, Buffer.from('\r\n'));
    }
    parts.push(Buffer.from(`--${boundary}--\r\n`));
    const res = await this.app.inject({
      method: 'POST',
      url,
      headers: { cookie: this.cookieHeader(), 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: Buffer.concat(parts),
    });
    this.keep(res);
    return res;
  }

  async signIn(clientId: string, clientSecret: string): Promise<LightMyRequestResponse> {
    await this.get('/console/sign-in');
    return this.post('/console/sign-in', { clientId, clientSecret });
  }

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(res: LightMyRequestResponse): void {
    for (const c of res.cookies as { name: string; value: string }[]) {
      if (c.value === '') this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
  }
}

/** The text of a page, tags dropped: what a reader sees. */
export const textOf = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/&#39;/g, "'").replace(/\s+/g, ' ');
