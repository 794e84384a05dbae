import { tokenRoutes } from './tokens.js';
import type { RouteModule } from './types.js';

/** Every resource of the versioned API, registered in this order. */
export const routeModules: RouteModule[] = [tokenRoutes];
