/*
 * The copy buttons of both surfaces. A `button[data-copy]` names the element whose value it copies
 * (its `data-copy-value`, else its value, else its text) and, in `data-status`, the element that
 * then says `data-copied` or `data-copy-failed`. The buttons are hidden until this runs: without
 * script the value is still there to select and copy by hand. Clicks are listened for on the
 * document, so buttons a page puts in place later (the order page, once paid) work too.
 * Plain ES2019, sent as written: no build step.
 */
(function () {
  'use strict';
  function textOf(target) {
    if (target.dataset.copyValue) return target.dataset.copyValue;
    if (typeof target.value === 'string') return target.value.trim();
    return target.textContent.trim();
  }
  function select(target) {
    if (typeof target.select === 'function') {
      target.select();
      return;
    }
    var range = document.createRange();
    range.selectNodeContents(target);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
  function copy(button) {
    var target = document.getElementById(button.dataset.copy);
    var status = document.getElementById(button.dataset.status);
    if (!target) return;
    function say(ok) {
      if (status) status.textContent = ok ? button.dataset.copied : button.dataset.copyFailed;
    }
    // Where the Clipboard API is missing or refused, the older command on a selection still copies.
    function fallback() {
      try {
        select(target);
        say(document.execCommand('copy'));
      } catch {
        say(false);
      }
    }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(textOf(target)).then(function () {
        say(true);
      }, fallback);
    } else {
      fallback();
    }
  }
  document.addEventListener('click', function (event) {
    var button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null;
    if (button) copy(button);
  });
  function reveal() {
    Array.prototype.forEach.call(document.querySelectorAll('button[data-copy]'), function (button) {
      button.hidden = false;
    });
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', reveal);
  else reveal();
})();
