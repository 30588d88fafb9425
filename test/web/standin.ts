import fs from 'node:fs';
import path from 'node:path';
import formbody from '@fastify/formbody';
import { Eta } from 'eta';
import type { FastifyInstance } from 'fastify';
import { learningPages } from '../../src/modules/learning/learning.pages.ts';
import type { FlashdeckApp } from '../../src/app.ts';

const eta = new Eta({ views: path.resolve(import.meta.dirname, '../../src/surfaces/web/views'), autoEscape: true });

export function standin(getApp: () => FlashdeckApp) {
  return (app: FastifyInstance) => {
    void app.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      await scope.register(formbody);
      scope.setErrorHandler((error: any, _request, reply) => {
        const status = error.status ?? error.statusCode ?? 500;
        for (const [k, v] of Object.entries(error.headers ?? {})) reply.header(k, v);
        void reply.code(status).type('text/html; charset=utf-8').send(`<!doctype html><h1>${status === 404 ? 'Not found' : 'Error'}</h1><p>${status}</p>`);
      });
      scope.get('/assets/:file', (request: any, reply) => reply.type(request.params.file.endsWith('.js') ? 'text/javascript' : 'text/css').send(fs.readFileSync(path.resolve(import.meta.dirname, '../../src/surfaces/web/assets', path.basename(request.params.file)))));
      learningPages(scope, {
        ctx: new Proxy({}, { get: (_t, k) => (getApp().services as any)[k] }),
        policy: new Proxy({}, { get: (_t, k) => { const p = getApp().policy as any; const v = p[k]; return typeof v === 'function' ? v.bind(p) : v; } }),
        viewer: (request: any) => { const id = /x-test-user=([^;]+)/.exec(request.headers.cookie ?? '')?.[1]; return id ? { userId: id } : null; },
        requireUser: (request: any) => { const id = /x-test-user=([^;]+)/.exec(request.headers.cookie ?? '')?.[1]; if (!id) throw new Error('signed out'); return { userId: id }; },
        csrfToken: () => 'csrf',
        page: (reply: any, template: string, data: any) => reply.type('text/html; charset=utf-8').send(`<!doctype html><html><head>${((data.scripts ?? []) as string[]).map((s) => `<script src="${s}" defer></script>`).join('')}<title>${data.pageTitle}</title>${data.robots ? `<meta name="robots" content="${data.robots}">` : ""}</head><body>${eta.render(template, data)}</body></html>`),
      } as never);
    });
  };
}
