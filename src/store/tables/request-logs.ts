/** One logged request; `id` is the X-Request-Id it was answered with, bodies are stored redacted. */
export interface RequestLogRow {
  id: string;
  platform_id: string;
  token_id: string;
  method: string;
  /** The URL's path, without its query. */
  path: string;
  query: string | null;
  status: number;
  /** Microseconds from arrival to the answer handed to the socket. */
  duration_us: number;
  /** The X-Request-Id the client sent, if any (the answered id is always the server's). */
  client_request_id: string | null;
  request_body: string | null;
  response_body: string | null;
  created_at: number;
}

export interface RequestLogTables {
  request_logs: RequestLogRow;
}
