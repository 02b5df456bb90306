#!/usr/bin/env bash
# Re-fetches the vendored browser assets of the playgrounds from the npm registry, at the
# pinned versions below, into assets/vendor/ (README.md lists them with their licenses).
# `npm pack` checks each tarball against the registry's integrity hash. Run it after
# changing a version, then update the file names in src/lib.rs and README.md.
set -euo pipefail
cd "$(dirname "$0")"

REACT=18.3.1
GRAPHIQL=4.1.2
SWAGGER_UI=5.35.0

out="$PWD/assets/vendor"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# unpack PACKAGE VERSION: the package's files in $work/PACKAGE-VERSION/package.
unpack() {
  local dir="$work/$1-$2"
  mkdir -p "$dir"
  (cd "$dir" && npm pack --silent "$1@$2" >/dev/null && tar xzf ./*.tgz)
  echo "$dir/package"
}

mkdir -p "$out"
rm -f "$out"/*

react="$(unpack react "$REACT")"
cp "$react/umd/react.production.min.js" "$out/react-$REACT.production.min.js"
cp "$react/LICENSE" "$out/react-$REACT.LICENSE.txt"

react_dom="$(unpack react-dom "$REACT")"
cp "$react_dom/umd/react-dom.production.min.js" "$out/react-dom-$REACT.production.min.js"
cp "$react_dom/LICENSE" "$out/react-dom-$REACT.LICENSE.txt"

graphiql="$(unpack graphiql "$GRAPHIQL")"
cp "$graphiql/graphiql.min.js" "$out/graphiql-$GRAPHIQL.min.js"
cp "$graphiql/graphiql.min.css" "$out/graphiql-$GRAPHIQL.min.css"
cp "$graphiql/LICENSE" "$out/graphiql-$GRAPHIQL.LICENSE.txt"

swagger="$(unpack swagger-ui-dist "$SWAGGER_UI")"
cp "$swagger/swagger-ui-bundle.js" "$out/swagger-ui-$SWAGGER_UI.bundle.js"
cp "$swagger/swagger-ui.css" "$out/swagger-ui-$SWAGGER_UI.css"
cp "$swagger/LICENSE" "$out/swagger-ui-$SWAGGER_UI.LICENSE.txt"
cp "$swagger/NOTICE" "$out/swagger-ui-$SWAGGER_UI.NOTICE.txt"
cp "$swagger/swagger-ui-bundle.js.LICENSE.txt" "$out/swagger-ui-$SWAGGER_UI.bundle.js.LICENSE.txt"

(cd "$out" && sha256sum -- * && du -b -- * | sort -k2)
