// The pages' own assets (surfaces/web/assets/: site.css, the scripts, the icon), read and compressed
// once at boot and answered from memory. site.css holds back every page's first paint, and
// @fastify/static answered it with a stat, an open, reads and a brotli stream per request: several
// trips through libuv's thread pool, each a wait for a core on a busy machine, all on the way to
// the first paint. Every URL a template writes carries the file's hash (`/assets/site.css?v=...`),
// so a browser keeps the file for a year and never asks again, and a changed file gets a new URL.
// The plain path (or an old hash) still answers, with the short cache it always had. KaTeX's CSS
// and fonts stay on @fastify/static (/assets/katex/).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import negotiate from '@fastify/accept-negotiator';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const PREFIX = '/assets/';
const TYPES: ReadonlyMap<string, string> = new Map([
  ['.css', 'text/css; charset=utf-8'],
  ['.js', 'text/javascript; charset=utf-8'],
  ['.svg', 'image/svg+xml'],
]);
/** For a URL with the file's current hash: the content behind it never changes. */
const VERSIONED_CACHE = 'public, max-age=31536000, immutable';
/** For the plain path: the file may change with the next release. */
const PLAIN_CACHE = 'public, max-age=3600';

type Encoding = 'br' | 'gzip' | 'identity';

interface Asset {
  readonly type: string;
  /** The first 12 characters of the file's SHA-256 (base64url). */
  readonly version: string;
  readonly bodies: Readonly<Record<Encoding, Buffer>>;
}

/** The assets of the pages, by URL path (`/assets/site.css`). */
export type Assets = ReadonlyMap<string, Asset>;

/** Reads every asset in `dir` and compresses it once (brotli at its best level: done at boot only). */
export function loadAssets(dir: string): Assets {
  const assets = new Map<string, Asset>();
  for (const name of fs.readdirSync(dir).sort()) {
    const type = TYPES.get(path.extname(name));
    if (type === undefined) continue;
    const identity = fs.readFileSync(path.join(dir, name));
    const version = createHash('sha256').update(identity).digest('base64url').slice(0, 12);
    const br = zlib.brotliCompressSync(identity, {
      params: { [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: identity.length },
    });
    const gzip = zlib.gzipSync(identity, { level: zlib.constants.Z_BEST_COMPRESSION });
    assets.set(`${PREFIX}${name}`, { type, version, bodies: { identity, br, gzip } });
  }
  return assets;
}

/** The URL a page writes for an asset: with its hash when it is one of these, else as given. */
export function assetUrl(assets: Assets, urlPath: string): string {
  const asset = assets.get(urlPath);
  return asset === undefined ? urlPath : `${urlPath}?v=${asset.version}`;
}

/**
 * The coding Accept-Encoding prefers among br and gzip (br on a tie), else none: the negotiation
 * @fastify/compress and @fastify/static make (q-values, `*`, q=0 refusing a coding).
 */
function pickEncoding(header: string | undefined): Encoding {
  return header === undefined ? 'identity' : negotiate(header, ['br', 'gzip']) ?? 'identity';
}

/** A strong validator per representation (each encoding is different bytes). */
function etagOf(asset: Asset, encoding: Encoding): string {
  return encoding === 'identity' ? `"${asset.version}"` : `"${asset.version}-${encoding}"`;
}

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

function answer(asset: Asset, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const query = request.query as Record<string, unknown>;
  const encoding = pickEncoding(request.headers['accept-encoding']);
  const etag = etagOf(asset, encoding);
  void reply
    .header('Cache-Control', query.v === asset.version ? VERSIONED_CACHE : PLAIN_CACHE)
    .header('ETag', etag)
    .header('Vary', 'Accept-Encoding')
    .type(asset.type);
  if (matches(request.headers['if-none-match'], etag)) return reply.code(304).send();
  if (encoding !== 'identity') void reply.header('Content-Encoding', encoding);
  return reply.send(asset.bodies[encoding]);
}

/** One GET (and HEAD) route per asset; any other /assets/ path is the not-found page. */
export function serveAssets(scope: FastifyInstance, assets: Assets): void {
  for (const [urlPath, asset] of assets) {
    scope.get(urlPath, { compress: false }, async (request, reply) => answer(asset, request, reply));
  }
}
