import { loadConfig } from '../config.js';
import { openServices, type Services } from '../services.js';

/** Opens the configured store for a command, runs it, and always closes the store. */
export async function withServices<T>(fn: (services: Services) => Promise<T>): Promise<T> {
  const services = await openServices(loadConfig());
  try {
    return await fn(services);
  } finally {
    await services.store.close();
  }
}
