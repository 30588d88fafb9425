import { escapeHtml } from './html-escape.ts';

const LINE_BREAK = /\r\n?|\n/;

/** `text`: plain, no markdown or math. Escaped, every line break kept as `<br>`. */
export function renderTextSide(text: string): string {
  if (text === '') return '';
  return `<p>${text.split(LINE_BREAK).map(escapeHtml).join('<br>\n')}</p>`;
}
