// `html` sides: sanitised by sanitize-html to exactly the spec's allowlist.
import sanitizeHtml from 'sanitize-html';

/** The spec's allowlist, and nothing else. */
export const HTML_ALLOWED_TAGS = Object.freeze([
  'p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'br', 'hr', 'sub', 'sup', 'small', 'mark', 'kbd', 'abbr', 'span',
] as const);

/**
 * The only attribute that survives: `title` on `abbr` (the expansion of the abbreviation, its whole
 * point). No `class`, `id`, `style`, `data-*`, `lang`/`dir`, event handler or URL attribute on
 * anything: classes and ids would let content borrow the page's own styling (a fake answer label,
 * a hidden element), and nothing on the list needs a URL.
 */
export const HTML_ALLOWED_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = Object.freeze({ abbr: Object.freeze(['title']) });

/** Deeper nesting of allowed tags is flattened (the tags dropped, their text kept). */
export const HTML_NESTING_LIMIT = 32;

const SANITIZE_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [...HTML_ALLOWED_TAGS],
  allowedAttributes: Object.fromEntries(Object.entries(HTML_ALLOWED_ATTRIBUTES).map(([tag, names]) => [tag, [...names]])),
  allowedSchemes: [],
  allowedSchemesByTag: {},
  allowProtocolRelative: false,
  allowVulnerableTags: false,
  // A disallowed tag is dropped and its text kept, except for these, whose content is code, markup
  // or form state rather than text meant for the reader.
  disallowedTagsMode: 'discard',
  nonTextTags: ['script', 'style', 'textarea', 'option', 'select', 'xmp', 'noscript', 'noembed', 'noframes', 'template', 'iframe', 'object', 'title'],
  nestingLimit: HTML_NESTING_LIMIT,
};

/**
 * `html`: sanitised to `p`, `h1`–`h6`, `br`, `hr`, `sub`, `sup`, `small`, `mark`, `kbd`, `abbr`,
 * `span`. Everything else (script, iframe, style, form, object, embed, `a`, images, SVG, MathML,
 * ...) is removed with its attributes; text is re-escaped.
 */
export function renderHtmlSide(html: string): string {
  if (html === '') return '';
  return sanitizeHtml(html, SANITIZE_OPTIONS);
}

/** An image an HTML side referred to, as written (an Anki field's `<img src alt>`). */
export interface HtmlImage {
  readonly src: string;
  readonly alt: string | null;
}

/**
 * `html` sanitised as renderHtmlSide does, with every `<img>` taken out and listed in document
 * order (an imported Anki field: its first image becomes the side's image).
 */
export function sanitiseHtmlTakingImages(html: string): { html: string; images: HtmlImage[] } {
  const images: HtmlImage[] = [];
  if (html === '') return { html, images };
  const out = sanitizeHtml(html, {
    ...SANITIZE_OPTIONS,
    allowedTags: [...HTML_ALLOWED_TAGS, 'img'],
    allowedAttributes: { ...SANITIZE_OPTIONS.allowedAttributes, img: ['src', 'alt'] },
    exclusiveFilter: (frame) => {
      if (frame.tag !== 'img') return false;
      const { src, alt } = frame.attribs as { src?: string; alt?: string };
      if (src !== undefined && src !== '') images.push({ src, alt: alt === undefined || alt === '' ? null : alt });
      return true;
    },
  });
  return { html: out, images };
}

/** The text of an HTML fragment, tags removed (entities stay escaped). */
export function htmlText(html: string): string {
  if (html === '') return '';
  return sanitizeHtml(html.replace(/<br\s*\/?>|<\/(?:p|div|li|h[1-6])>/gi, '\n'), { ...SANITIZE_OPTIONS, allowedTags: [], allowedAttributes: {} });
}
