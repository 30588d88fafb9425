// Process entry: config, build app, listen, graceful close.
import { ConfigError, loadConfig } from './config.ts';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`flashdeck: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  // Loaded once the config is known good: a bad variable is reported before the app's module graph
  // (every surface and its plugins) is even read.
  const { buildApp } = await import('./app.ts');
  const app = await buildApp(config);
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'draining in-flight requests');
    // Fastify's close stops accepting connections and waits for in-flight requests to finish.
    app.close().then(() => process.exit(0), (error: unknown) => {
      app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  await app.listen({ port: config.port, host: config.host });
}

main().catch((error: unknown) => {
  process.stderr.write(`flashdeck: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
