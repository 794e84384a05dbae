export type DeliveryState = 'PENDING' | 'DELIVERED' | 'FAILED' | 'WEBHOOK_ENDPOINT_NOT_SET';

/** One event for a platform; `body` is the exact JSON that is signed and POSTed, the same on every attempt. */
export interface WebhookEventRow {
  id: string;
  platform_id: string;
  type: string;
  body: string;
  delivery_state: DeliveryState;
  created_at: number;
  /** Place on the platform's lists, given at commit (store/list-clock.ts); inserts write the creation time until then. */
  list_position?: number;
  updated_at: number;
}

export interface WebhookEventTables {
  webhook_events: WebhookEventRow;
}
