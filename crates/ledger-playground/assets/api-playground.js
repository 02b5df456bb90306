// Swagger UI over /openapi.json, with the key of the key bar (key.js).
(function () {
  'use strict';
  var mount = document.getElementById('swagger-ui');
  var documentUrl = document.body.getAttribute('data-openapi') || '/openapi.json';
  if (!window.SwaggerUIBundle || !window.LedgerKey) {
    mount.textContent = 'The REST playground could not load its scripts.';
    mount.className = 'explorer playground-error';
    return;
  }

  function hasAuthorization(headers) {
    return Object.keys(headers || {}).some(function (name) {
      return name.toLowerCase() === 'authorization';
    });
  }

  window.SwaggerUIBundle({
    url: documentUrl,
    dom_id: '#swagger-ui',
    deepLinking: true,
    // Requests are editable at once; no "Try it out" click needed.
    tryItOutEnabled: true,
    displayRequestDuration: true,
    filter: true,
    // No badge from the public validator (no third-party requests).
    validatorUrl: null,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    // The key bar's key on requests to this origin, unless the request already
    // carries credentials (Swagger UI's own Authorize dialog).
    requestInterceptor: function (request) {
      var key = window.LedgerKey.get();
      if (key && window.LedgerKey.sameOrigin(request.url) && !hasAuthorization(request.headers)) {
        request.headers = request.headers || {};
        request.headers.Authorization = 'Bearer ' + key;
      }
      return request;
    },
  });
})();
