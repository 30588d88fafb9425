// Every request the authorization server makes to the outside (client ID metadata documents, a
// client's jwks_uri) goes through this fetch, given to oidc-provider as its `fetch`: https only,
// never to a private, loopback, link-local or otherwise special address (checked on the resolved
// addresses; oidc-provider's own dispatcher re-checks the connected socket, which closes the DNS
// rebinding gap), a timeout, a size limit, and the JSON guard of src/validation.ts before anyone
// parses the body. The fetcher and the resolver are injectable so tests need no network.
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { BACKSLASH_KEY } from '../../validation.ts';

export type Fetcher = (url: string, init: RequestInit) => Promise<Response>;
export type Resolver = (hostname: string) => Promise<string[]>;

export interface MetadataFetchOptions {
  fetch?: Fetcher;
  resolve?: Resolver;
  timeoutMs?: number;
  maxBytes?: number;
}

export const METADATA_MAX_BYTES = 5 * 1024;
export const METADATA_TIMEOUT_MS = 2500;

const special = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) special.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 127], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23], ['2001:db8::', 32], ['2002::', 16],
  ['fc00::', 7], ['fe80::', 10], ['ff00::', 8],
] as const) special.addSubnet(network, prefix, 'ipv6');

/** Whether an IP address is one a server must never be sent to on a client's say-so. */
export function isSpecialAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return special.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped !== null) return special.check(mapped[1], 'ipv4');
  return special.check(address, 'ipv6');
}

const defaultResolve: Resolver = async (hostname) => (await dnsLookup(hostname, { all: true, order: 'verbatim' })).map((a) => a.address);

async function readLimited(response: Response, maxBytes: number): Promise<string> {
  const length = response.headers.get('content-length');
  if (length !== null && Number(length) > maxBytes) throw new Error('response too large');
  if (response.body === null) return '';
  const chunks: Uint8Array[] = [];
  let received = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    received += chunk.byteLength;
    if (received > maxBytes) {
      await response.body.cancel().catch(() => undefined);
      throw new Error('response too large');
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The `fetch` oidc-provider is configured with. */
export function guardedFetch(options: MetadataFetchOptions = {}): Fetcher {
  const inner: Fetcher = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
  const resolve = options.resolve ?? defaultResolve;
  const timeoutMs = options.timeoutMs ?? METADATA_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? METADATA_MAX_BYTES;
  return async (url, init) => {
    const target = new URL(url);
    if (target.protocol !== 'https:') throw new Error('only https URLs are fetched');
    const host = target.hostname.replace(/^\[|\]$/g, '');
    const addresses = isIP(host) === 0 ? await resolve(host) : [host];
    if (addresses.length === 0 || addresses.some(isSpecialAddress)) throw new Error('the host resolves to a private or special-use address');
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    const response = await inner(url, { ...init, signal, redirect: 'manual' });
    const body = await readLimited(response, maxBytes);
    // oidc-provider JSON.parses what it fetched: a key of one backslash must never get there.
    if (BACKSLASH_KEY.test(body)) throw new Error('the document has a property named with one backslash');
    return new Response(body, { status: response.status, headers: response.headers });
  };
}
