// Process entry: config, build app, listen, graceful close.
import { performance } from 'node:perf_hooks';
import { ConfigError, loadConfig } from './config.ts';

/**
 * Gives memory back once a busy spell is over. V8 keeps its heap sized for the last allocation
 * rate, and Node sends it no idle notification, so after a burst (imports, a hostile mix) RSS
 * stayed where the burst left it (docs/deployment.md, "Memory"). Every 10 s: after a period in
 * which the event loop was busy, the first quiet one (under 5 % busy) runs one full collection,
 * which returns the emptied heap pages to the system. Only when the start script exposes gc.
 */
function returnMemoryWhenQuiet(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== 'function') return;
  let mark = performance.eventLoopUtilization();
  let busySinceCollection = false;
  setInterval(() => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, mark).utilization;
    mark = now;
    if (busy > 0.05) busySinceCollection = true;
    else if (busySinceCollection) {
      busySinceCollection = false;
      gc();
    }
  }, 10_000).unref();
}

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
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    // Node names the address (ENOTFOUND, EADDRINUSE), not the variables that chose it.
    throw new Error(`cannot listen on HOST=${config.host} PORT=${config.port}: ${error instanceof Error ? error.message : String(error)}`);
  }
  // Once at start as well as hourly: a server restarted more often than hourly (deploys, a crash
  // loop) would otherwise never purge the trash or anything else that expires.
  void app.purgeExpired();
  returnMemoryWhenQuiet();
}

main().catch((error: unknown) => {
  process.stderr.write(`flashdeck: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
