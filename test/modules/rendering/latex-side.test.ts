import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KATEX_OPTIONS, MAX_FORMULA_HTML_LENGTH, MAX_FORMULA_LENGTH, renderLatexSide, renderMath, mathCost, type MathBudget } from '../../../src/modules/rendering/latex-side.ts';
import { assertSafeHtml, elementsOf, textOf } from '../../helpers/rendered-html.ts';

test('should render a latex side as one display formula with MathML for screen readers', () => {
  const html = renderLatexSide('E = mc^2');
  assert.match(html, /^<div class="math-display"><span class="katex-display"><span class="katex">/);
  assert.ok(elementsOf(html).some((el) => el.name === 'math' && el.attributes.display === 'block'));
  assert.ok(elementsOf(html).some((el) => el.name === 'annotation' && el.attributes.encoding === 'application/x-tex'));
});

test('should use untrusted-input KaTeX settings', () => {
  assert.equal(KATEX_OPTIONS.trust, false);
  assert.equal(KATEX_OPTIONS.strict, 'error');
  assert.equal(KATEX_OPTIONS.maxExpand, 1000);
  assert.equal(KATEX_OPTIONS.maxSize, 10);
  assert.equal('macros' in KATEX_OPTIONS, false);
});

test('should tolerate one pair of math delimiters around a latex side', () => {
  const plain = renderLatexSide('x^2');
  for (const wrapped of ['$$x^2$$', '$x^2$', '\\[x^2\\]', '\\(x^2\\)', '  $$ x^2 $$  ']) assert.equal(renderLatexSide(wrapped), plain, wrapped);
  assert.equal(renderLatexSide('  '), '');
  assert.equal(renderLatexSide('$$$$'), '');
});

const inertCommands = {
  '\\href': '\\href{https://evil.example}{click}',
  '\\url': '\\url{https://evil.example}',
  '\\includegraphics': '\\includegraphics[height=1em]{https://evil.example/x.png}',
} as const;

for (const [command, source] of Object.entries(inertCommands)) {
  test(`should keep KaTeX ${command} inert: no link, no image, the command shown as text`, () => {
    const html = renderLatexSide(source);
    const elements = elementsOf(html);
    assert.ok(!elements.some((el) => el.name === 'a' || el.name === 'img'), html);
    assert.ok(!elements.some((el) => 'href' in el.attributes || 'src' in el.attributes), html);
    assert.ok(textOf(html).includes(command));
    assertSafeHtml(html, command);
  });
}

for (const command of ['\\htmlClass{answer-label}{x}', '\\htmlId{main}{x}', '\\htmlStyle{color:red}{x}', '\\htmlData{foo=bar}{x}']) {
  test(`should keep KaTeX ${command.slice(0, command.indexOf('{'))} inert: no class, id, style or data attribute from the source`, () => {
    const html = renderLatexSide(command);
    const elements = elementsOf(html);
    assert.ok(!elements.some((el) => (el.attributes.class ?? '').split(' ').includes('answer-label')), html);
    assert.ok(!elements.some((el) => 'id' in el.attributes || 'data-foo' in el.attributes), html);
    assert.ok(!elements.some((el) => (el.attributes.style ?? '').includes('color:red')), html);
    assert.match(html, /class="math-error/);
    assertSafeHtml(html, command);
  });
}

test('should render a KaTeX parse error as the escaped source with the reason in a title, never throw', () => {
  const html = renderMath('\\frac{<b>}{', false);
  assert.match(html, /^<span class="math-error" title="KaTeX parse error: [^"]*">\\frac\{&lt;b&gt;\}\{<\/span>$/);
  assert.match(renderLatexSide('\\undefinedcommand'), /^<div class="math-display"><span class="math-error math-error-display" title=/);
});

test('should stop a macro bomb at maxExpand', () => {
  assert.match(renderMath('\\def\\a{\\a\\a}\\a', true), /title="KaTeX parse error: Too many expansions/);
});

test('should cap user-given sizes at maxSize', () => {
  const elements = elementsOf(renderMath('\\rule{1000em}{1000em}', true));
  assert.ok(elements.some((el) => el.name === 'mspace' && el.attributes.width === '10em' && el.attributes.height === '10em'));
  assert.ok(!elements.some((el) => (el.attributes.style ?? '').includes('1000em')));
});

test('should not let \\gdef leak from one formula into the next', () => {
  renderMath('\\gdef\\leak{LEAKED}\\leak', false);
  assert.match(renderMath('\\leak', false), /class="math-error"/);
});

test('should render deep nesting that overflows the stack as escaped source', () => {
  const html = renderLatexSide('{'.repeat(3999));
  assert.ok(html.includes('title="The formula is too deeply nested to display"'), html.slice(0, 200));
});

test('should show a formula whose HTML would be too large as its source', () => {
  const source = `\\begin{matrix}${'&'.repeat(1000)}\\end{matrix}`;
  const html = renderMath(source, true);
  assert.ok(html.length < MAX_FORMULA_HTML_LENGTH);
  assert.match(html, /title="The formula is too large to display"/);
});

test('should render identical output for identical input', () => {
  const source = '\\sum_{i=0}^{n} \\frac{x_i}{\\sqrt{2}}';
  assert.equal(renderLatexSide(source), renderLatexSide(source));
});

test('should show a formula longer than a side may be as its source without asking KaTeX', () => {
  const source = 'x'.repeat(MAX_FORMULA_LENGTH + 1);
  assert.equal(renderMath(source, false), `<span class="math-error" title="The formula is too long to display">${source}</span>`);
  assert.doesNotMatch(renderMath('x'.repeat(MAX_FORMULA_LENGTH), false), /math-error/);
});

test('should take formulas from a math budget and show those past it as source', () => {
  const budget: MathBudget = { remaining: 10, refused: 0 };
  assert.match(renderMath('a+b', false, budget), /class="katex"/);
  assert.equal(budget.remaining, 7);
  assert.match(renderMath('abcdefgh', false, budget), /^<span class="math-error" title="This deck holds more math than is displayed[^"]*">abcdefgh<\/span>$/);
  assert.deepEqual(budget, { remaining: 7, refused: 1 });
  assert.match(renderMath('x^2', false, budget), /class="katex"/);
  assert.deepEqual(budget, { remaining: 4, refused: 1 });
});

test('should cost a formula one unit per character and ten more per array cell or row', () => {
  assert.equal(mathCost('x^2'), 3);
  assert.equal(mathCost('a&b\\\\c'), 6 + 20);
  const budget: MathBudget = { remaining: 25, refused: 0 };
  assert.match(renderMath('a&b\\\\c', true, budget), /class="math-error/);
  assert.equal(budget.refused, 1);
});
