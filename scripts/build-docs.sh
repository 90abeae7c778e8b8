#!/usr/bin/env bash
# Builds the DocC reference of the Graft target with the toolchain's `docc` (no plugin):
#   1. symbol graphs from `swift build` (scratch path .build-docs, so the main build is untouched);
#   2. a catalog made from Documentation/ (the one copy of the articles, readable on GitHub): each
#      GitHub link to another article, `[text](Name.md)`, becomes a DocC link, `<doc:Name>`; the
#      contributor guide in Documentation/Internals/ stays out of the user reference;
#   3. `docc convert --warnings-as-errors`: a broken symbol or article link fails the build;
#   4. documentation coverage of public symbols must be 100%.
# The site is written to .build-docs/site (static hosting); scripts/README.md says how to open it.
set -euo pipefail
cd "$(dirname "$0")/.."

SCRATCH=.build-docs
SYMBOLS="$SCRATCH/symbol-graphs"
CATALOG="$SCRATCH/Graft.docc"
SITE="$SCRATCH/site"
rm -rf "$SYMBOLS" "$CATALOG" "$SITE"
mkdir -p "$SYMBOLS" "$CATALOG"

# Symbol graphs of the public API, without the members Swift synthesizes from other modules'
# protocols (`!=` of `Equatable`, and the like), which have no documentation to give.
swift build --target Graft --scratch-path "$SCRATCH" >/dev/null
SDK_ARGS=()
if [ "$(uname)" = Darwin ]; then SDK_ARGS=(-sdk "$(xcrun --show-sdk-path)"); fi
swift symbolgraph-extract -module-name Graft -I "$(swift build --scratch-path "$SCRATCH" --show-bin-path)/Modules" \
    -target "$(swiftc -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["target"]["triple"])')" \
    "${SDK_ARGS[@]}" -output-dir "$SYMBOLS" -skip-synthesized-members -minimum-access-level public

cp -R Documentation/. "$CATALOG/"
rm -rf "$CATALOG/Internals"  # the contributor guide, read on GitHub
for article in "$CATALOG"/*.md; do
    # [text](Name.md) -> <doc:Name>, and [text](Name.md#anchor) -> <doc:Name#anchor>
    sed -E -i 's/\[[^]]*\]\(([A-Za-z]+)\.md(#[A-Za-z0-9-]+)?\)/<doc:\1\2>/g' "$article"
    # ![alt](Images/name.svg) -> ![alt](name.svg): DocC finds resources by file name
    sed -E -i 's/\]\(Images\/([A-Za-z0-9-]+\.[a-z]+)\)/](\1)/g' "$article"
done

docc convert "$CATALOG" \
    --additional-symbol-graph-dir "$SYMBOLS" \
    --fallback-display-name Graft --fallback-bundle-identifier org.graft.Graft \
    --output-path "$SITE" --transform-for-static-hosting \
    --warnings-as-errors \
    --experimental-documentation-coverage --coverage-summary-level brief \
    > "$SCRATCH/docc.log" 2>&1 || { cat "$SCRATCH/docc.log"; echo "FAIL: docs: docc reported errors"; exit 1; }

python3 - "$SITE/documentation-coverage.json" <<'PY'
import json, sys
entries = json.load(open(sys.argv[1]))
public = [e for e in entries if e["kind"]["isSymbol"]]
missing = [e for e in public if not e.get("hasAbstract")]
print(f"docs: coverage {len(public) - len(missing)}/{len(public)} public symbols documented")
for entry in missing[:50]:
    print("  undocumented:", entry["kind"]["name"], entry["referencePath"].split("/documentation/")[-1])
sys.exit(1 if missing else 0)
PY
echo "PASS: docs: built $SITE with no warnings and full coverage"
