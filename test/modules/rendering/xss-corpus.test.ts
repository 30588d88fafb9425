// Every payload of the shared XSS corpus, through every content type, as info, as a side's image
// URL and alt text, and inside markdown link and image syntax: the output must hold no script, no
// event handler, no dangerous URL, and only elements and attributes the renderer writes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CONTENT_TYPES, type CardDto } from '../../../src/modules/decks/decks.schemas.ts';
import { renderCard, renderSide, sideHtml } from '../../../src/modules/rendering/card-renderer.ts';
import { renderSideMedia } from '../../../src/modules/rendering/media.ts';
import { XSS_CORPUS } from '../../fixtures/xss-corpus.ts';
import { assertSafeHtml, elementsOf } from '../../helpers/rendered-html.ts';

test('should hold at least 40 payloads with unique names', () => {
  assert.ok(XSS_CORPUS.length >= 40);
  assert.equal(new Set(XSS_CORPUS.map((p) => p.name)).size, XSS_CORPUS.length);
});

for (const { name, payload } of XSS_CORPUS) {
  test(`should render "${name}" safely in every content type`, () => {
    for (const type of CONTENT_TYPES) assertSafeHtml(renderSide(payload, type), `${name} as ${type}`);
  });

  test(`should render "${name}" safely as a side's image URL and alt text`, () => {
    assertSafeHtml(renderSideMedia({ imageUrl: payload, imageAlt: payload }), `${name} as media URL and alt`);
    const html = renderSideMedia({ imageUrl: 'https://img.example/a.png', imageAlt: payload });
    assertSafeHtml(html, `${name} as alt`);
    assert.equal(elementsOf(html).find((el) => el.name === 'img')?.attributes.alt, payload, 'the alt text is kept, as text');
  });

  test(`should render "${name}" safely inside markdown link and image syntax`, () => {
    const oneLine = payload.replace(/\n/g, ' ');
    for (const source of [`[x](${oneLine})`, `![${oneLine}](${oneLine})`, `![x](https://img.example/a.png "${oneLine}")`, `[${oneLine}](https://a.example)`, `<${oneLine}>`]) {
      assertSafeHtml(renderSide(source, 'markdown'), `${name} in ${source.slice(0, 40)}`);
    }
  });

  test(`should render "${name}" safely as every field of a whole card`, () => {
    const card: CardDto = {
      id: 'crd_x', order: 0, front: payload, back: payload, oneSided: false,
      frontMedia: { imageUrl: payload, imageAlt: payload }, backMedia: { imageUrl: '/m/ok.png', imageAlt: payload },
      extras: { frontType: 'markdown', backType: 'html', info: payload, subject: payload.slice(0, 60), topic: payload.slice(0, 80) },
    };
    const rendered = renderCard(card);
    for (const html of [sideHtml(rendered, 'front'), sideHtml(rendered, 'back'), rendered.chrome, rendered.info ?? '']) {
      assertSafeHtml(html, `${name} in a card`);
    }
  });
}

test('should have a checker that catches each kind of unsafe output', () => {
  const unsafe = [
    '<script>alert(1)</script>',
    '<p onclick="alert(1)">x</p>',
    '<a href="javascript:alert(1)" rel="noopener noreferrer nofollow ugc">x</a>',
    '<a href=" JAVA\tSCRIPT:alert(1)" rel="noopener noreferrer nofollow ugc">x</a>',
    '<a href="https://a.example">no rel</a>',
    '<img src="data:image/png;base64,AA" alt="" loading="lazy" referrerpolicy="no-referrer">',
    '<img src="http://img.example/a.png" alt="" loading="lazy" referrerpolicy="no-referrer">',
    '<img src="//evil.example/a.png" alt="" loading="lazy" referrerpolicy="no-referrer">',
    '<img src="https://img.example/a.png" loading="lazy" referrerpolicy="no-referrer">',
    '<img src="https://img.example/a.png" alt="">',
    '<iframe src="https://a.example"></iframe>',
    '<svg><path d="M0"></path></svg>',
    '<span style="color:red">x</span>',
    '<p id="main">x</p>',
    '<span class="katex"><a href="https://a.example">x</a></span>',
    '<form action="vbscript:x"></form>',
  ];
  for (const html of unsafe) assert.throws(() => assertSafeHtml(html, 'probe'), assert.AssertionError, html);
  assert.doesNotThrow(() => assertSafeHtml('<span class="katex"><span style="height:1em"><svg width="1em"><path d="M0"></path></svg></span></span>', 'katex'));
});
