// Readiness of what the service needs (GET /healthz): the system surface asks here, and the
// repository alone holds the SQL of the probe.
import type { ServiceContext } from '../../context.ts';
import { pingDatabase } from './health.repository.ts';

/** Resolves once the database answered a round trip; throws when it is unreachable. */
export function checkDatabase(ctx: Pick<ServiceContext, 'db'>): Promise<void> {
  return pingDatabase(ctx.db);
}
