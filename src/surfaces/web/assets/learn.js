// The learning view's keys (served as a file: the pages' CSP allows no inline script).
// Space shows the answer; once it is shown, 1 to 4 press Again, Hard, Good, Easy. The buttons
// and forms work without this file; it only saves a reload and measures the answer's duration.
'use strict';
(function () {
  const card = document.querySelector('[data-learn-card]');
  if (!card) return;
  const shownAt = Date.now();
  const answer = card.querySelector('[data-answer]');
  const showForm = card.querySelector('[data-show-answer]');
  const ratings = Array.from(card.querySelectorAll('[data-rating]'));
  const duration = card.querySelector('input[name="durationMs"]');

  function answerShown() {
    return answer !== null && !answer.hidden;
  }

  function showAnswer() {
    if (answer === null || answerShown()) return;
    answer.hidden = false;
    if (showForm !== null) showForm.hidden = true;
    const heading = answer.querySelector('.answer-label');
    const target = ratings[0] || heading;
    if (heading !== null) heading.setAttribute('tabindex', '-1');
    if (target !== null && target !== undefined) target.focus();
  }

  if (showForm !== null) {
    showForm.addEventListener('submit', function (event) {
      event.preventDefault();
      showAnswer();
    });
  }

  if (duration !== null) {
    const rateForm = duration.form;
    if (rateForm !== null) {
      rateForm.addEventListener('submit', function () {
        duration.value = String(Math.min(Date.now() - shownAt, 86400000));
      });
    }
  }

  document.addEventListener('keydown', function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.repeat) return;
    const target = event.target;
    // Typing in a field keeps its usual meaning, and so does Space on a button or link.
    if (target instanceof HTMLElement && target.closest('input, textarea, select, [contenteditable]')) return;
    if (event.key === ' ' && target instanceof HTMLElement && target.closest('button, a')) return;
    if (event.key === ' ' && !answerShown()) {
      event.preventDefault();
      showAnswer();
      return;
    }
    const index = ['1', '2', '3', '4'].indexOf(event.key);
    if (index >= 0 && answerShown() && ratings[index] !== undefined) {
      event.preventDefault();
      ratings[index].click();
    }
  });
})();
