// The ceiling: a bare node:http server, in its own process on the project's Node, that answers
// each path it was given with the status, headers and body bytes captured from a real Flashdeck
// response, from memory. No authentication, store, framework or hooks: what is left is what any
// Node server pays to accept a request and write those bytes (the floor Flashdeck is measured
// against).
//
//   node bench/ceiling.ts RESPONSES.json
//
// RESPONSES.json: { keepAliveSeconds, responses: { "/path": { status, rawHeaders, bodyBase64 } } }.
// It prints `CEILING_READY {"port":N}` once it listens on 127.0.0.1.
import fs from 'node:fs';
import http from 'node:http';

export interface CapturedResponse {
  status: number;
  /** Flat [name, value, name, value, ...], as sent (without Date, Connection and Keep-Alive). */
  rawHeaders: string[];
  bodyBase64: string;
}

export interface CeilingInput {
  /** The Keep-Alive timeout Flashdeck announced, so the ceiling's headers are the same bytes. */
  keepAliveSeconds: number | null;
  responses: Record<string, CapturedResponse>;
}

if (process.argv[1] === import.meta.filename) {
  const input = JSON.parse(fs.readFileSync(process.argv[2], 'utf8')) as CeilingInput;
  const answers = new Map(Object.entries(input.responses).map(([url, r]) => [url, {
    status: r.status, rawHeaders: r.rawHeaders, body: Buffer.from(r.bodyBase64, 'base64'),
  }]));
  const server = http.createServer((req, res) => {
    const answer = answers.get(req.url ?? '');
    if (answer === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(answer.status, answer.rawHeaders);
    res.end(answer.body);
  });
  if (input.keepAliveSeconds !== null) server.keepAliveTimeout = input.keepAliveSeconds * 1000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`CEILING_READY ${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
