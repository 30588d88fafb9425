// The redirect after sign-in and sign-up (DECISIONS: only a same-origin path given in `?next=`):
// judged on the Location as a browser resolves it. Values are built from the pieces that browsers
// read differently from a naive check (`/`, `\`, `.`, `%2e`, `%2f`, `%5c`, tabs, newlines), fed to
// /signin and /signup of a signed-in person over HTTP, and the Location each answers with is
// resolved against the page as a browser would.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import fc from 'fast-check';
import { safeNext } from '../../../src/surfaces/web/next.ts';
import { buildForSuite } from '../../helpers/server.ts';
import { newEmail, WebClient } from '../../helpers/web.ts';

const PIECES = ['/', '\\', '.', '..', '%2e', '%2E', '%2f', '%2F', '%5c', '%5C', '\t', '\n', '\r', ' ', 'evil.example', 'phish', '@', ':', '?', '#'];

/** A `next` value made of the pieces above, most of them starting with `/` as a path would. */
const nextValue = fc.tuple(fc.boolean(), fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 12 }))
  .map(([slash, parts]) => `${slash ? '/' : ''}${parts.join('')}`);

const RED_TEAM = ['/.//evil.example/phish', '/..//evil.example', '/./\\evil.example', '/%2e//evil.example', '/%2e%2e//evil.example', '/\t/evil.example', '/\n/evil.example'];

const SITE = 'https://flashdeck.example';

/** Where a browser on `page` goes when told `Location: location`. */
function resolved(location: string, page: string): URL {
  return new URL(location, page);
}

describe('the redirect after sign-in, as the browser resolves it', () => {
  test('should keep every resolved Location on this origin, whatever next is made of', () => {
    fc.assert(fc.property(nextValue, (next) => {
      const location = safeNext(next);
      const target = resolved(location, `${SITE}/signin?next=x`);
      assert.equal(target.origin, SITE, `${JSON.stringify(next)} -> ${location}`);
      // What is sent is what is judged: judging it again changes nothing.
      assert.equal(safeNext(location), location);
    }), { numRuns: 5000 });
  });

  test('should send the red team\'s paths that normalise to //host to /', () => {
    for (const next of RED_TEAM) assert.equal(safeNext(next), '/', JSON.stringify(next));
  });

  test('should keep ordinary paths, their query and fragment as they are', () => {
    for (const next of ['/settings/tokens?x=1', '/decks/dk_1/edit#card-3', '/a/./b/../c', '/%2e%2e', '/']) {
      const location = safeNext(next);
      assert.equal(resolved(location, `${SITE}/signin`).href, new URL(next, SITE).href, next);
    }
  });

  describe('over HTTP', () => {
    let signedIn: WebClient;
    const suite = buildForSuite({ socket: true });
    before(async () => {
      signedIn = new WebClient(suite.server.url);
      assert.equal((await signedIn.signUp(newEmail('next'))).status, 303);
    });

    async function locationFor(page: '/signin' | '/signup', next: string): Promise<string> {
      const res = await signedIn.get(`${page}?next=${encodeURIComponent(next)}`);
      assert.equal(res.status, 303, next);
      assert.ok(res.location !== null);
      return res.location;
    }

    test('should answer the red team\'s examples on /signin and /signup with a Location on this origin', async () => {
      for (const page of ['/signin', '/signup'] as const) {
        for (const next of RED_TEAM) {
          const location = await locationFor(page, next);
          assert.equal(resolved(location, `${suite.server.url}${page}`).origin, new URL(suite.server.url).origin, `${page} ${JSON.stringify(next)} -> ${location}`);
          assert.equal(location, '/');
        }
      }
    });

    test('should answer every generated next on /signin and /signup with a Location on this origin', async () => {
      const origin = new URL(suite.server.url).origin;
      await fc.assert(fc.asyncProperty(nextValue, fc.constantFrom('/signin' as const, '/signup' as const), async (next, page) => {
        const location = await locationFor(page, next);
        assert.equal(resolved(location, `${suite.server.url}${page}`).origin, origin, `${page} ${JSON.stringify(next)} -> ${location}`);
      }), { numRuns: 300 });
    });

    test('should carry next from sign-in to sign-up and back, so a newcomer returns where they were sent from', async () => {
      const next = '/oauth/authorize?client_id=c&scope=decks%3Aread&state=a%26b';
      const visitor = new WebClient(suite.server.url);
      const signin = await visitor.get(`/signin?next=${encodeURIComponent(next)}`);
      const toSignup = /<a href="([^"]*)">Create an account<\/a>\./.exec(signin.text)?.[1];
      assert.equal(toSignup, `/signup?next=${encodeURIComponent(next).replaceAll('&', '&amp;')}`);
      const signup = await visitor.get(toSignup.replaceAll('&amp;', '&'));
      assert.equal(/<a href="([^"]*)">Go to sign-in<\/a>\./.exec(signup.text)?.[1], `/signin?next=${encodeURIComponent(next).replaceAll('&', '&amp;')}`);
      const res = await visitor.post('/signup', { email: newEmail('next-signup'), password: 'correct horse battery', next: /name="next" value="([^"]*)"/.exec(signup.text)?.[1]?.replaceAll('&amp;', '&') ?? '' });
      assert.equal(res.status, 303);
      assert.equal(res.location, next);
      // Nowhere to go back to: the plain links.
      assert.match((await new WebClient(suite.server.url).get('/signin')).text, /<a href="\/signup">Create an account<\/a>\./);
    });

    test('should return to the same-origin path after a sign-in form post', async () => {
      const email = newEmail('next-post');
      await new WebClient(suite.server.url).signUp(email);
      const res = await new WebClient(suite.server.url).signIn(email, undefined, '/.//evil.example/phish');
      assert.equal(res.status, 303);
      assert.equal(res.location, '/');
      const kept = await new WebClient(suite.server.url).signIn(email, undefined, '/settings/tokens?x=1');
      assert.equal(kept.location, '/settings/tokens?x=1');
    });
  });
});
