/** Times are integer milliseconds since the epoch on both engines; JSON is stored as text. */
export interface PlatformRow {
  id: string;
  name: string;
  created_at: number;
  /** The last position given on the platform's lists (see store/list-clock.ts); 0 for none. */
  list_clock?: number;
  /**
   * Set on a production scope: the sandbox platform it is the production environment of. Each
   * (platform, environment) is one data scope; the sandbox scope is the platform's own row.
   */
  sandbox_platform_id?: string | null;
  /** The sandbox clock: milliseconds this platform's time is ahead of real time (migration 019); 0 unless advanced. */
  clock_offset_ms?: number;
}

export interface ApiTokenRow {
  id: string;
  platform_id: string;
  name: string;
  permissions: string;
  environment: 'sandbox' | 'production';
  secret_hash: string;
  created_at: number;
  /** Place on the platform's lists, given at commit (store/list-clock.ts); inserts write the creation time until then. */
  list_position?: number;
  updated_at: number;
  revoked_at: number | null;
}

export interface ServerSettingRow {
  key: string;
  value: string;
}

export interface FoundationTables {
  platforms: PlatformRow;
  api_tokens: ApiTokenRow;
  server_settings: ServerSettingRow;
}
