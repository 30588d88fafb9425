// The learning view's keys and quick rating (served as a file: the pages' CSP allows no inline
// script). Space or Enter shows the answer; once it is shown, Space and Enter mean Good (focus
// sits on Good, as in Anki) and 1 to 4 press Again, Hard, Good, Easy. A rating is posted with
// fetch and the next card's page (the redirect the form gets) replaces <main> in place: no full
// reload. The buttons and forms work without this file; it only saves reloads and measures the
// answer's duration.
'use strict';
(function () {
  let card = null;
  let answer = null;
  let showForm = null;
  let ratings = [];
  let shownAt = Date.now();
  let posting = false;

  function good() {
    return ratings.find(function (b) { return b.value === 'good'; }) || null;
  }

  function answerShown() {
    return answer !== null && !answer.hidden;
  }

  function showAnswer() {
    if (answer === null || answerShown()) return;
    answer.hidden = false;
    if (showForm !== null) showForm.hidden = true;
    const heading = answer.querySelector('.answer-label');
    const target = good() || heading;
    if (heading !== null) heading.setAttribute('tabindex', '-1');
    if (target !== null) target.focus();
  }

  /** Binds the card now in <main> (on load, and after each card swapped in). */
  function bind(main) {
    card = main.querySelector('[data-learn-card]');
    answer = card && card.querySelector('[data-answer]');
    showForm = card && card.querySelector('[data-show-answer]');
    ratings = card ? Array.from(card.querySelectorAll('[data-rating]')) : [];
    shownAt = Date.now();
    posting = false;
    if (showForm !== null) {
      showForm.addEventListener('submit', function (event) {
        event.preventDefault();
        showAnswer();
      });
    }
    const rateForm = card && card.querySelector('form[data-rate]');
    if (rateForm) rateForm.addEventListener('submit', function (event) { rate(event, rateForm); });
  }

  /** The stylesheets the next page needs that this one lacks (KaTeX's, for a card with a formula). */
  function addStylesheets(doc) {
    const have = new Set(Array.from(document.querySelectorAll('link[rel="stylesheet"]')).map(function (l) { return l.href; }));
    doc.querySelectorAll('link[rel="stylesheet"]').forEach(function (link) {
      if (!have.has(link.href)) document.head.appendChild(document.importNode(link, true));
    });
  }

  function swapIn(html, url) {
    const doc = new window.DOMParser().parseFromString(html, 'text/html');
    const next = doc.querySelector('main');
    const main = document.querySelector('main');
    if (next === null || main === null) return false;
    addStylesheets(doc);
    const fresh = document.importNode(next, true);
    main.replaceWith(fresh);
    document.title = doc.title;
    if (url !== location.href) window.history.replaceState(null, '', url);
    bind(fresh);
    // Focus where the next step is: Show answer, Good (a one-sided card), or the end's heading.
    const focus = (showForm && showForm.querySelector('button')) || (answerShown() && good())
      || fresh.querySelector('.learn-done h2') || fresh.querySelector('h1');
    if (focus !== null) {
      if (!focus.matches('button, a')) focus.setAttribute('tabindex', '-1');
      focus.focus();
    }
    return true;
  }

  function rate(event, form) {
    const duration = form.querySelector('input[name="durationMs"]');
    if (duration !== null) duration.value = String(Math.min(Date.now() - shownAt, 86400000));
    if (!window.fetch || !window.DOMParser) return; // the form posts as it is
    event.preventDefault();
    if (posting) return; // a second press while the first is on its way acts once
    posting = true;
    const body = new URLSearchParams(new FormData(form, event.submitter || good()));
    ratings.forEach(function (b) { b.setAttribute('aria-disabled', 'true'); });
    fetch(form.action, { method: 'POST', body: body, credentials: 'same-origin', headers: { Accept: 'text/html' } })
      .then(function (response) {
        return response.text().then(function (html) {
          if (!response.ok || !swapIn(html, response.url)) {
            // The server's answer is a whole page (an error, a sign-in): show it as the browser would.
            document.open();
            document.write(html);
            document.close();
          }
        });
      })
      .catch(function () {
        posting = false;
        ratings.forEach(function (b) { b.removeAttribute('aria-disabled'); });
      });
  }

  const main = document.querySelector('main');
  if (main === null || main.querySelector('[data-learn-card], .learn') === null) return;
  bind(main);

  document.addEventListener('keydown', function (event) {
    if (card === null || event.altKey || event.ctrlKey || event.metaKey || event.repeat) return;
    const target = event.target;
    // Typing in a field keeps its usual meaning, and so do Space and Enter on a button or link.
    if (target instanceof HTMLElement && target.closest('input, textarea, select, [contenteditable]')) return;
    const press = event.key === ' ' || event.key === 'Enter';
    if (press && target instanceof HTMLElement && target.closest('button, a, summary')) return;
    if (press) {
      event.preventDefault();
      if (!answerShown()) showAnswer();
      else if (good() !== null) good().click();
      return;
    }
    const index = ['1', '2', '3', '4'].indexOf(event.key);
    if (index >= 0 && answerShown() && ratings[index] !== undefined) {
      event.preventDefault();
      ratings[index].click();
    }
  });
})();
