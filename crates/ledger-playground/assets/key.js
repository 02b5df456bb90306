// The API key of a playground page: kept in this tab's sessionStorage, shown masked,
// and handed to the explorer, which sends it as `Authorization: Bearer <key>` to this
// origin only.
(function () {
  'use strict';
  var STORAGE = 'ledger.playground.apiKey';
  var listeners = [];
  var key = '';
  try {
    key = window.sessionStorage.getItem(STORAGE) || '';
  } catch (e) {
    key = '';
  }
  var form = document.getElementById('key-form');
  var input = document.getElementById('api-key');
  var status = document.getElementById('key-status');

  function describe() {
    if (!key) {
      status.textContent = 'No key: requests go without Authorization.';
    } else {
      var shown = key.length > 12 ? key.slice(0, 8) + '…' + key.slice(-4) : '…';
      status.textContent = 'Key set (' + shown + '): sent as Authorization: Bearer.';
    }
  }

  function set(value) {
    key = (value || '').trim();
    try {
      if (key) {
        window.sessionStorage.setItem(STORAGE, key);
      } else {
        window.sessionStorage.removeItem(STORAGE);
      }
    } catch (e) {
      // Storage may be off: the key still lives for this page.
    }
    describe();
    listeners.forEach(function (f) { f(key); });
  }

  input.value = key;
  describe();
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    set(input.value);
  });
  document.getElementById('forget-key').addEventListener('click', function () {
    input.value = '';
    set('');
  });

  window.LedgerKey = {
    get: function () { return key; },
    onChange: function (f) { listeners.push(f); },
    // Whether `url` is on this page's origin: the only place the key goes.
    sameOrigin: function (url) {
      try {
        return new URL(url, window.location.href).origin === window.location.origin;
      } catch (e) {
        return false;
      }
    },
  };
})();
