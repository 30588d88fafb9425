// Reads rendered card HTML with a real HTML parser (htmlparser2, sanitize-html's own) so tests
// assert on elements and attributes, not on substrings.
import assert from 'node:assert/strict';
import { Parser } from 'htmlparser2';

export interface SeenElement {
  name: string;
  attributes: Record<string, string>;
  /** Inside KaTeX's output (an element with class `katex`). */
  inKatex: boolean;
}

export function elementsOf(html: string): SeenElement[] {
  const seen: SeenElement[] = [];
  const katexStack: boolean[] = [];
  const parser = new Parser({
    onopentag(name, attributes) {
      const inKatex = (katexStack.at(-1) ?? false) || (attributes.class ?? '').split(/\s+/).includes('katex');
      seen.push({ name, attributes, inKatex });
      katexStack.push(inKatex);
    },
    onclosetag() {
      katexStack.pop();
    },
  }, { decodeEntities: true, lowerCaseAttributeNames: true, lowerCaseTags: true });
  parser.end(html);
  return seen;
}

/** Text content, entities decoded, tags dropped. */
export function textOf(html: string): string {
  let text = '';
  new Parser({ ontext(data) { text += data; } }, { decodeEntities: true }).end(html);
  return text;
}

/** Elements the card renderer may write outside KaTeX, by what writes them. */
const RENDERER_ELEMENTS = [
  // text sides, media, the card's own chrome and label
  'p', 'br', 'div', 'span', 'h2', 'img',
  // the html allowlist
  'h1', 'h3', 'h4', 'h5', 'h6', 'hr', 'sub', 'sup', 'small', 'mark', 'kbd', 'abbr',
  // markdown
  'blockquote', 'ul', 'ol', 'li', 'pre', 'code', 'em', 'strong', 's', 'a', 'table', 'thead', 'tbody',
  'tr', 'th', 'td', 'input', 'label',
];

/** What KaTeX writes with untrusted-input settings: HTML spans, MathML, and SVG for stretchy glyphs. */
const KATEX_ELEMENTS = [
  'span', 'math', 'semantics', 'annotation', 'mrow', 'mi', 'mn', 'mo', 'ms', 'mtext', 'mspace', 'msup', 'msub',
  'msubsup', 'mfrac', 'msqrt', 'mroot', 'mover', 'munder', 'munderover', 'mtable', 'mtr', 'mtd', 'mlabeledtr',
  'mpadded', 'mphantom', 'mstyle', 'menclose', 'svg', 'path', 'line',
];

export const ALLOWED_ELEMENTS: ReadonlySet<string> = new Set([...RENDERER_ELEMENTS, ...KATEX_ELEMENTS]);

/** Attributes the renderer writes outside KaTeX. */
const RENDERER_ATTRIBUTES = new Set([
  'class', 'href', 'rel', 'title', 'src', 'alt', 'loading', 'decoding', 'referrerpolicy', 'type', 'disabled',
  'checked', 'aria-hidden',
]);

const URL_ATTRIBUTES = new Set(['href', 'src', 'srcset', 'xlink:href', 'action', 'formaction', 'poster', 'data', 'background', 'cite', 'ping']);
const DANGEROUS_SCHEME = /^(?:javascript|data|vbscript|file):/;

function schemeOf(value: string): string {
  // What a browser does before reading a scheme: strip controls and spaces, lower-case.
  return value.replace(/[\u0000-\u0020\u007f]/g, '').toLowerCase();
}

/**
 * The safety properties every rendered output must have: no script element, no event-handler
 * attribute, no javascript:/data:/vbscript:/file: URL, no element outside what the renderer writes,
 * no attribute outside what it writes (style only inside KaTeX), no URL attribute inside KaTeX,
 * images only from https or root-relative URLs, links only to http(s), mailto or relative URLs.
 */
export function assertSafeHtml(html: string, label: string): void {
  assert.doesNotMatch(html, /<script/i, `${label}: <script`);
  for (const element of elementsOf(html)) {
    const where = `${label}: <${element.name}>`;
    assert.ok(ALLOWED_ELEMENTS.has(element.name), `${where} is not an element the renderer writes`);
    if (!element.inKatex) assert.ok(RENDERER_ELEMENTS.includes(element.name), `${where} outside KaTeX`);
    for (const [name, value] of Object.entries(element.attributes)) {
      assert.ok(!name.startsWith('on'), `${where} has event handler ${name}`);
      if (URL_ATTRIBUTES.has(name)) {
        assert.ok(!element.inKatex, `${where} inside KaTeX has URL attribute ${name}`);
        assert.doesNotMatch(schemeOf(value), DANGEROUS_SCHEME, `${where} ${name}=${value}`);
      }
      if (!element.inKatex) assert.ok(RENDERER_ATTRIBUTES.has(name), `${where} has attribute ${name}`);
    }
    if (element.name === 'img') {
      const src = element.attributes.src ?? '';
      assert.ok(/^https:\/\/[^/]/i.test(src) || /^\/(?![/\\])/.test(src), `${where} src ${src}`);
      assert.ok('alt' in element.attributes, `${where} without alt`);
      assert.equal(element.attributes.loading, 'lazy', `${where} not lazy`);
      assert.equal(element.attributes.referrerpolicy, 'no-referrer', `${where} sends a referrer`);
    }
    if (element.name === 'a') {
      const href = URL.parse(element.attributes.href ?? '', 'https://flashdeck.invalid/decks/x');
      assert.ok(href !== null && ['http:', 'https:', 'mailto:'].includes(href.protocol), `${where} href ${element.attributes.href}`);
      assert.equal(element.attributes.rel, 'noopener noreferrer nofollow ugc', `${where} rel`);
    }
  }
}
