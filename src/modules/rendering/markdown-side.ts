// `markdown` sides (and extras.info): markdown-it with raw HTML off, GFM tables, strikethrough,
// task lists and autolinks, math through the same KaTeX settings as `latex` sides.
import MarkdownIt, { type MarkdownIt as Markdown, type RendererRule, type Token } from 'markdown-it';
import taskLists from 'markdown-it-task-lists';
import markdownItKatexModule from '@vscode/markdown-it-katex';
import katex from 'katex';
import { escapeHtml } from './html-escape.ts';
import { renderMath, type MathBudget } from './latex-side.ts';
import { imageTag } from './media.ts';
import { applySemanticListMarkers } from './semantic-markers.ts';
import { isAllowedLinkUrl, safeImageUrl } from './urls.ts';

/** Every link a card carries: no opener access, no referrer, no endorsement, user content. */
export const LINK_REL = 'noopener noreferrer nofollow ugc';

/** Block and inline nesting beyond this is not parsed as structure (markdown-it's own cut-off). */
export const MARKDOWN_MAX_NESTING = 20;

/** What one rendering hands to the renderer rules (markdown-it's `env`). */
type RenderEnv = { mathBudget?: MathBudget } & Record<string, unknown>;

const budgetOf = (env: RenderEnv | undefined): MathBudget | undefined => env?.mathBudget;

// The task-list plugin's only raw HTML: its disabled checkbox (checked or not) and the label
// around the item. Anything else that reaches an HTML rule is escaped.
const TASK_LIST_HTML = new Set([
  '<input class="task-list-item-checkbox" disabled="" type="checkbox">',
  '<input class="task-list-item-checkbox" checked="" disabled="" type="checkbox">',
  '<label>',
  '</label>',
]);

// The package is CommonJS with an `exports.default`.
const markdownItKatex = markdownItKatexModule.default;

function tableAlignmentAsClass(tokens: Token[]): void {
  // markdown-it writes column alignment as an inline style; a class keeps the output free of
  // style attributes (the page's CSP need not allow them for markdown).
  for (const token of tokens) {
    if ((token.type !== 'th_open' && token.type !== 'td_open') || token.attrs === null) continue;
    const style = token.attrGet('style');
    if (typeof style !== 'string' || !style.startsWith('text-align:')) continue;
    token.attrs = token.attrs.filter(([name]) => name !== 'style');
    token.attrJoin('class', `align-${style.slice('text-align:'.length)}`);
  }
}

function withWwwAutolinks(md: Markdown): void {
  // GFM autolinks: http(s):// URLs, emails and `www.` hosts, but not bare domains (`main.py`
  // is a file name, not a link). linkify-it has no `www.` switch, so it is a schema of its own.
  md.linkify.add('//', null);
  md.linkify.add('ftp:', null);
  let hostAndPath: RegExp | undefined;
  md.linkify.add('www.', {
    validate(text: string, pos: number, self: Markdown['linkify']) {
      hostAndPath ??= new RegExp(self.re.get_url_host_port().source + self.re.get_path().source, 'iy');
      const re = hostAndPath;
      re.lastIndex = pos;
      const match = re.exec(text);
      return match === null ? 0 : match[0].length;
    },
    normalize(match: { url: string }) {
      match.url = `http://${match.url}`;
    },
  });
}

function createMarkdown(): Markdown {
  const md = new MarkdownIt('default', {
    html: false,
    linkify: true,
    typographer: false,
    breaks: true,
    maxNesting: MARKDOWN_MAX_NESTING,
  });
  withWwwAutolinks(md);
  md.validateLink = isAllowedLinkUrl;
  // The plugin keeps its options in module variables: this is the only place that uses it.
  md.use(taskLists, { enabled: false, label: true });
  md.use(markdownItKatex, { katex });
  // Registered after the task-list rule but placed before it: markers are read from the item's
  // own text, before linkify splits it and before a checkbox is put in front of it.
  md.core.ruler.after('inline', 'semantic_list_markers', (state) => { applySemanticListMarkers(state.tokens); });
  md.core.ruler.push('table_alignment_class', (state) => { tableAlignmentAsClass(state.tokens); });

  const rules = md.renderer.rules;
  rules.link_open = (tokens, idx, options, _env, self) => {
    tokens[idx].attrSet('rel', LINK_REL);
    return self.renderToken(tokens, idx, options);
  };
  rules.image = renderImage;
  rules.html_inline = (tokens, idx) => (TASK_LIST_HTML.has(tokens[idx].content) ? tokens[idx].content : escapeHtml(tokens[idx].content));
  rules.html_block = (tokens, idx) => escapeHtml(tokens[idx].content);
  rules.math_inline = (tokens, idx, _options, env) => renderMath(tokens[idx].content, false, budgetOf(env));
  rules.math_block = renderDisplayMath;
  rules.math_inline_block = renderDisplayMath;
  return md;
}

// The plugin gives `$$…$$` the same token type on a line of its own and inside a paragraph; only
// the former has a source map. Inside a paragraph it must stay phrasing content: a span, shown as
// a block by the stylesheet.
const renderDisplayMath: RendererRule = (tokens, idx, _options, env) => {
  const html = renderMath(tokens[idx].content, true, budgetOf(env));
  return tokens[idx].map === null ? `<span class="math-display">${html}</span>` : `<div class="math-display">${html}</div>\n`;
};

const renderImage: RendererRule = (tokens, idx, options, env, self) => {
  const token = tokens[idx];
  const alt = self.renderInlineAsText(token.children ?? [], options, env);
  const src = safeImageUrl(String(token.attrGet('src') ?? ''));
  // An image from anywhere but https or this site is inert: its alt text is shown instead.
  if (src === null) return escapeHtml(alt);
  const title = token.attrGet('title');
  return imageTag(src, alt, title === null ? null : String(title));
};

const markdown = createMarkdown();

/**
 * `markdown`: CommonMark plus GFM tables, strikethrough, task lists (disabled checkboxes) and
 * autolinks; raw HTML shown as text; single line breaks kept; `$…$` and `$$…$$` math by KaTeX.
 * Links only to http(s), mailto or relative URLs (others stay literal text), each with
 * `rel="noopener noreferrer nofollow ugc"`; images only from https or root-relative URLs, with
 * alt text, lazy, no referrer. Semantic list markers become `marker-*` classes.
 */
export function renderMarkdownSide(source: string, mathBudget?: MathBudget): string {
  if (source === '') return '';
  const env: RenderEnv = mathBudget === undefined ? {} : { mathBudget };
  return markdown.render(source, env);
}
