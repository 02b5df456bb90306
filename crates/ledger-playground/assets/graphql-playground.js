// GraphiQL against POST /graphql, with the key of the key bar (key.js).
(function () {
  'use strict';
  var mount = document.getElementById('graphiql');
  var endpoint = document.body.getAttribute('data-endpoint') || '/graphql';
  if (!window.React || !window.ReactDOM || !window.GraphiQL || !window.LedgerKey) {
    mount.textContent = 'The GraphQL playground could not load its scripts.';
    mount.className = 'explorer playground-error';
    return;
  }

  // GraphiQL's dialogs insert one <style> element; the page's policy admits it with this
  // response's nonce, which webpack-built code reads from `__webpack_nonce__`.
  var nonce = document.querySelector('meta[name="ledger-style-nonce"]');
  if (nonce && nonce.content) {
    window.__webpack_nonce__ = nonce.content;
  }

  var DEFAULT_QUERY = [
    '# Set your API key above, then run this query (Ctrl-Enter).',
    '# Writes are mutations: see the Docs pane for the schema.',
    'query Organization {',
    '  organization {',
    '    id',
    '    name',
    '    baseCurrency { code }',
    '    accounts { code name accountType }',
    '  }',
    '}',
    '',
  ].join('\n');

  // Headers typed in GraphiQL's headers pane win over the key bar's.
  function fetcher(params, options) {
    var headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
    var key = window.LedgerKey.get();
    if (key) {
      headers.Authorization = 'Bearer ' + key;
    }
    var extra = (options && options.headers) || {};
    Object.keys(extra).forEach(function (name) {
      headers[name] = extra[name];
    });
    return fetch(endpoint, {
      method: 'POST',
      headers: headers,
      body: JSON.stringify(params),
      credentials: 'omit',
    }).then(function (response) {
      return response.text().then(function (text) {
        try {
          return JSON.parse(text);
        } catch (e) {
          return { errors: [{ message: 'HTTP ' + response.status + ': ' + text }] };
        }
      });
    });
  }

  var root = ReactDOM.createRoot(mount);
  var generation = 0;
  function render() {
    generation += 1;
    // A new React key remounts GraphiQL, so it fetches the schema again with the new
    // credentials; the editors keep their text (GraphiQL stores it).
    root.render(
      React.createElement(GraphiQL, {
        key: 'graphiql-' + generation,
        fetcher: fetcher,
        defaultQuery: DEFAULT_QUERY,
        isHeadersEditorEnabled: true,
        shouldPersistHeaders: false,
      })
    );
  }
  window.LedgerKey.onChange(render);
  render();
})();
