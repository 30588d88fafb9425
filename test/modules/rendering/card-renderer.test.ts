import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CardDto } from '../../../src/modules/decks/decks.schemas.ts';
import {
  answerLabel, categoryChrome, MAX_SIDE_HTML_LENGTH, renderCard, renderedCardLength, renderSide, sideHtml,
} from '../../../src/modules/rendering/card-renderer.ts';
import { renderHtmlSide } from '../../../src/modules/rendering/html-side.ts';
import { renderLatexSide } from '../../../src/modules/rendering/latex-side.ts';
import { renderMarkdownSide } from '../../../src/modules/rendering/markdown-side.ts';
import { renderTextSide } from '../../../src/modules/rendering/text-side.ts';
import { textOf } from '../../helpers/rendered-html.ts';

function card(overrides: Partial<CardDto> = {}): CardDto {
  return {
    id: 'crd_1', order: 0, front: 'What is **ATP**?', back: 'Adenosine triphosphate', oneSided: false,
    extras: { frontType: 'markdown', backType: 'text' },
    ...overrides,
  };
}

test('should dispatch each content type to its renderer', () => {
  const source = '**a** <b>b</b> $x$';
  assert.equal(renderSide(source, 'text'), renderTextSide(source));
  assert.equal(renderSide(source, 'markdown'), renderMarkdownSide(source));
  assert.equal(renderSide(source, 'html'), renderHtmlSide(source));
  assert.equal(renderSide('x^2', 'latex'), renderLatexSide('x^2'));
});

test('should render a content type it does not know as escaped text', () => {
  assert.equal(renderSide('<b>x</b>', 'svg' as never), '<p>&lt;b&gt;x&lt;/b&gt;</p>');
});

test('should fall back to text for a side whose HTML would be too large', () => {
  const source = '$x$ '.repeat(1000);
  const html = renderSide(source, 'markdown');
  assert.ok(renderMarkdownSide(source).length > MAX_SIDE_HTML_LENGTH);
  assert.equal(html, `<div class="render-fallback">${renderTextSide(source)}</div>`);
});

test('should label the back as the answer with a visually distinct heading', () => {
  assert.equal(answerLabel(), '<h2 class="answer-label">Answer</h2>');
  assert.equal(answerLabel('Réponse <1>'), '<h2 class="answer-label">Réponse &lt;1&gt;</h2>');
});

test('should show subject, topic and card type as the chrome line, in that order', () => {
  const html = categoryChrome({ subject: 'Biology', topic: 'Cells', cardType: 'definition' });
  assert.equal(html, '<p class="card-chrome"><span class="card-subject">Biology</span><span class="card-chrome-separator" aria-hidden="true"> · </span>'
    + '<span class="card-topic">Cells</span><span class="card-chrome-separator" aria-hidden="true"> · </span><span class="card-type">definition</span></p>');
  assert.equal(textOf(html), 'Biology · Cells · definition');
});

test('should show only the category parts that are set, and nothing when none is', () => {
  assert.equal(textOf(categoryChrome({ topic: 'Cells', subject: null, cardType: null })), 'Cells');
  assert.equal(textOf(categoryChrome({ subject: 'Bio', cardType: 'formula' })), 'Bio · formula');
  assert.equal(categoryChrome({ subject: '  ', topic: null }), '');
  assert.equal(categoryChrome(undefined), '');
});

test('should escape the chrome', () => {
  assert.match(categoryChrome({ subject: '<script>alert(1)</script>' }), /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
});

test('should render a card: front by frontType, back by backType with the answer label, media and chrome', () => {
  const rendered = renderCard(card({
    frontMedia: { imageUrl: 'https://img.example/f.png', imageAlt: 'Front image' },
    extras: { frontType: 'markdown', backType: 'text', subject: 'Biology', topic: 'Energy', cardType: 'definition', info: 'See *chapter 2*' },
  }));
  assert.deepEqual(rendered, {
    id: 'crd_1', order: 0, oneSided: false, frontType: 'markdown', backType: 'text',
    front: '<p>What is <strong>ATP</strong>?</p>\n',
    frontMedia: '<p class="card-media"><img src="https://img.example/f.png" alt="Front image" loading="lazy" decoding="async" referrerpolicy="no-referrer"></p>',
    back: '<h2 class="answer-label">Answer</h2><p>Adenosine triphosphate</p>',
    backMedia: '',
    chrome: categoryChrome({ subject: 'Biology', topic: 'Energy', cardType: 'definition' }),
    info: '<p>See <em>chapter 2</em></p>\n',
  });
  assert.equal(renderedCardLength(rendered), rendered.front.length + rendered.frontMedia.length + rendered.back.length + rendered.chrome.length + rendered.info.length);
});

test('should compose a side as a page shows it', () => {
  const rendered = renderCard(card({ backMedia: { imageUrl: '/m/b.png' } }));
  assert.equal(sideHtml(rendered, 'front'), `<div class="card-side card-front content-markdown">${rendered.front}</div>`);
  assert.equal(sideHtml(rendered, 'back'), `<div class="card-side card-back content-text">${rendered.back}${rendered.backMedia}</div>`);
});

test('should give a card without front text or image no front, and one without back text or image no back', () => {
  const noFront = renderCard(card({ front: null }));
  assert.equal(noFront.front, null);
  assert.equal(sideHtml(noFront, 'front'), '');
  assert.equal(renderCard(card({ back: '   ' })).back, null);
  const imageOnly = renderCard(card({ back: null, backMedia: { imageUrl: '/m/b.png', imageAlt: 'b' } }));
  assert.equal(imageOnly.back, answerLabel());
  assert.match(imageOnly.backMedia, /<img src="\/m\/b.png"/);
});

test('should render latex and html sides by their types', () => {
  const rendered = renderCard(card({ front: 'E = mc^2', back: '<p onclick="x">Energy</p>', extras: { frontType: 'latex', backType: 'html', cardType: 'formula' } }));
  assert.equal(rendered.front, renderLatexSide('E = mc^2'));
  assert.equal(rendered.back, `${answerLabel()}<p>Energy</p>`);
});

test('should render every side and the info as text when asked for text only', () => {
  const rendered = renderCard(card({ extras: { frontType: 'latex', backType: 'html', info: '**i**' }, front: '\\frac12', back: '<b>b</b>' }), { textOnly: true });
  assert.equal(rendered.front, '<p>\\frac12</p>');
  assert.equal(rendered.back, `${answerLabel()}<p>&lt;b&gt;b&lt;/b&gt;</p>`);
  assert.equal(rendered.info, '<p>**i**</p>');
  assert.equal(rendered.frontType, 'latex');
});

test('should default to markdown for a card without extras', () => {
  const rendered = renderCard(card({ extras: undefined, back: '*b*' }));
  assert.equal(rendered.back, `${answerLabel()}<p><em>b</em></p>\n`);
  assert.equal(rendered.chrome, '');
  assert.equal(rendered.info, null);
});

test('should render identical cards to identical output', () => {
  const input = card({ front: '- \u2713 a\n- [ ] b\n\n$x$ https://a.example', extras: { frontType: 'markdown', backType: 'latex', subject: 'S' }, back: '\\sqrt{2}' });
  assert.deepEqual(renderCard(input), renderCard(structuredClone(input)));
});
