//! TEMPORARY: a small hand-written OpenAPI 3.1 document at `/openapi.json`, only so the
//! REST playground (`ledger-playground`) has a document to show on this branch. The
//! generated document (utoipa) replaces it; drop this file and its two lines in `lib.rs`.

use actix_web::{HttpResponse, web};

const DOCUMENT: &str = r##"{
  "openapi": "3.1.0",
  "info": {"title": "Ledger", "version": "0.1.0"},
  "components": {
    "securitySchemes": {
      "api_key": {"type": "http", "scheme": "bearer", "description": "An API key (ha_test_... or ha_live_...) or an OAuth access token."}
    },
    "schemas": {
      "Error": {"type": "object", "properties": {"error": {"type": "object"}}}
    }
  },
  "security": [{"api_key": []}],
  "paths": {
    "/organizations/{org}": {
      "get": {
        "operationId": "get_organization",
        "tags": ["organizations"],
        "summary": "An organization",
        "parameters": [{"name": "org", "in": "path", "required": true, "schema": {"type": "string"}}],
        "responses": {
          "200": {"description": "The organization", "content": {"application/json": {"schema": {"type": "object"}}}},
          "401": {"description": "No or bad key", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
        }
      }
    },
    "/organizations/{org}/accounts": {
      "get": {
        "operationId": "list_accounts",
        "tags": ["accounts"],
        "summary": "The chart of accounts",
        "parameters": [
          {"name": "org", "in": "path", "required": true, "schema": {"type": "string"}},
          {"name": "limit", "in": "query", "required": false, "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
          {"name": "offset", "in": "query", "required": false, "schema": {"type": "integer", "minimum": 0}}
        ],
        "responses": {
          "200": {"description": "A list of accounts", "content": {"application/json": {"schema": {"type": "object"}}}},
          "401": {"description": "No or bad key", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
        }
      }
    }
  }
}"##;

async fn document() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(DOCUMENT)
}

/// Registers `GET /openapi.json`.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/openapi.json", web::get().to(document));
}
