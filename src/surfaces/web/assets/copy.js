// Copy buttons: <button data-copy="ID"> copies the value of the field with that id, and reports
// in the element with data-copy-status="ID" (a polite live region). Served as a file: the pages'
// CSP allows no inline script.
'use strict';
document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null;
  if (!button) return;
  const id = button.getAttribute('data-copy');
  const input = document.getElementById(id);
  const status = document.querySelector(`[data-copy-status="${CSS.escape(id)}"]`);
  if (!(input instanceof HTMLInputElement)) return;
  const report = (text) => { if (status) status.textContent = text; };
  input.select();
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(input.value).then(() => report('Copied.'), () => report('Press Ctrl+C (or ⌘C) to copy.'));
  } else {
    report('Selected: press Ctrl+C (or ⌘C) to copy.');
  }
});
