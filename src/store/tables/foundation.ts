/** Times are integer milliseconds since the epoch on both engines; JSON is stored as text. */
export interface PlatformRow {
  id: string;
  name: string;
  created_at: number;
}

export interface ApiTokenRow {
  id: string;
  platform_id: string;
  name: string;
  permissions: string;
  environment: 'sandbox' | 'production';
  secret_hash: string;
  created_at: number;
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
