// src/server.ts for the PostgreSQL + Redis runs of the bench: the same app, config and shutdown,
// plus the one thing the environment cannot set, a Redis key namespace (BENCH_REDIS_NAMESPACE),
// so a run's keys are its own and are dropped after it. On SQLite the bench runs src/server.ts.
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';

const config = loadConfig(process.env);
const app = await buildApp(config, { redisNamespace: process.env.BENCH_REDIS_NAMESPACE || undefined });
let closing = false;
const shutdown = () => {
  if (closing) return;
  closing = true;
  app.close().then(() => process.exit(0), () => process.exit(1));
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
await app.listen({ port: config.port, host: config.host });
