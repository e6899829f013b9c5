/** Where the admin pages load {@link LIVE_REFRESH_SCRIPT} from (same origin: the CSP allows no inline script). */
export const LIVE_REFRESH_SCRIPT_PATH = '/admin/assets/live-refresh.js';

/**
 * Reloads a page every `data-refresh-seconds` of its `<body>`, except while the operator is at one
 * of its forms: a pointer resting on a form, focus inside one, or a field whose value differs from
 * what the page was served with holds the refresh (counted in `data-refresh-held`, so a test can
 * wait for it), and the next tick tries again. A reload would otherwise wipe a half-typed approval
 * reason, or put another row's button (a run's page gains rows as the run moves) under a
 * cursor that was about to click.
 */
export const LIVE_REFRESH_SCRIPT = `'use strict';
(function () {
  var body = document.body;
  var seconds = Number(body.getAttribute('data-refresh-seconds'));
  if (!(seconds > 0)) return;
  var fields = 'form input:not([type=hidden]):not([type=submit]):not([type=button]), form textarea, form select';
  function editing() {
    var active = document.activeElement;
    if (active && active.matches && active.matches(fields)) return true;
    if (document.querySelector('form:hover, form:focus-within')) return true;
    var all = document.querySelectorAll(fields);
    for (var index = 0; index < all.length; index += 1) {
      var field = all[index];
      if (field.tagName === 'SELECT') {
        for (var option = 0; option < field.options.length; option += 1) {
          if (field.options[option].selected !== field.options[option].defaultSelected) return true;
        }
      } else if (field.type === 'checkbox' || field.type === 'radio') {
        if (field.checked !== field.defaultChecked) return true;
      } else if (field.value !== field.defaultValue) {
        return true;
      }
    }
    return false;
  }
  function tick() {
    if (editing()) {
      body.setAttribute('data-refresh-held', String(Number(body.getAttribute('data-refresh-held') || 0) + 1));
      setTimeout(tick, seconds * 1000);
      return;
    }
    window.location.reload();
  }
  setTimeout(tick, seconds * 1000);
})();
`;
