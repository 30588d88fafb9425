import type { TestServer } from './server.ts';

/** The hashes of the images stored, read from the database itself. */
export async function mediaRows(server: TestServer): Promise<string[]> {
  const rows = await server.app.services.db.selectFrom('media_blobs').select('hash').execute();
  return rows.map((r) => r.hash);
}
