#!/usr/bin/env bash
# Builds the DocC documentation of the Graft target from its catalog, Sources/Graft/Graft.docc,
# whose entries are links to the files of Documentation/ (the one copy of the articles, readable
# on GitHub). Two builds, each with warnings as errors:
#   1. checks: the catalog links every file of Documentation/ and holds nothing else, and no
#      article links another GitHub's way, `[text](Name.md)` (DocC needs `[text](doc:Name)`);
#   2. the toolchain's `docc` alone: symbol graphs from `swift build` (scratch path .build-docs)
#      without the members Swift synthesizes from other modules' protocols, then
#      `docc convert`; documentation coverage of public symbols must be 100% -> .build-docs/site;
#   3. swift-docc-plugin 1.5.0, as the Swift Package Index builds it (.spi.yml): in a copy of the
#      package whose manifest gains the plugin (the package itself has no dependencies),
#      `swift package generate-documentation --target Graft` -> .build-docs/plugin-site.
# Both sites must have a page for every article. scripts/README.md says how to open them;
# scripts/check-docs-in-browser.sh renders both in a browser.
set -euo pipefail
cd "$(dirname "$0")/.."

SCRATCH=.build-docs
SYMBOLS="$SCRATCH/symbol-graphs"
CATALOG=Sources/Graft/Graft.docc
SITE="$SCRATCH/site"
PLUGIN_PACKAGE="$PWD/$SCRATCH/plugin-package"
PLUGIN_SCRATCH="$PWD/$SCRATCH/plugin-build"
PLUGIN_SITE="$PWD/$SCRATCH/plugin-site"
PLUGIN_URL=https://github.com/swiftlang/swift-docc-plugin
PLUGIN_VERSION=1.5.0

# 1. The catalog is Documentation/, file by file (docc does not follow a linked directory), and the
#    articles link each other DocC's way.
python3 - "$CATALOG" <<'PY'
import os, re, sys
catalog, source = sys.argv[1], "Documentation"
problems = []
files = sorted(name for name in os.listdir(source) if name != "Internals")
for name in files:
    path = os.path.join(source, name)
    if name == "Internals":
        continue  # the contributor guide, read on GitHub: not part of the user documentation
    if os.path.isdir(path):
        problems.append(f"{path} is a folder: DocC finds resources by file name and does not follow a "
                        f"linked folder; keep articles and images directly in {source}/")
        continue
    link = os.path.join(catalog, name)
    if not os.path.islink(link) or os.path.realpath(link) != os.path.realpath(path):
        problems.append(f"{link} does not link {path}: ln -sf ../../../{source}/{name} {catalog}/{name}")
for name in sorted(os.listdir(catalog)):
    if name not in files:
        problems.append(f"{catalog}/{name} is not a file of {source}/ (the articles have one copy): remove it")
for name in files:
    if not name.endswith(".md"):
        continue
    for number, line in enumerate(open(os.path.join(source, name), encoding="utf-8"), 1):
        for target in re.findall(r"\]\(([A-Za-z0-9_-]+)\.md(?:#[^)]*)?\)", line):
            problems.append(f"{source}/{name}:{number}: [text]({target}.md) is a broken link on the site; "
                            f"write [text](doc:{target})")
for problem in problems:
    print("FAIL: docs:", problem)
sys.exit(1 if problems else 0)
PY

# Every article has its page (Graft.md is the landing page, documentation/graft.json).
check_articles() {
    local site=$1 missing=0
    for article in Documentation/*.md; do
        local name
        name=$(basename "$article" .md)
        [ "$name" = Graft ] && continue
        local page
        page="$site/data/documentation/graft/$(echo "$name" | tr '[:upper:]' '[:lower:]').json"
        [ -f "$page" ] || { echo "FAIL: docs: $site has no page for $article"; missing=1; }
    done
    return $missing
}

# 2. The toolchain's docc.
rm -rf "$SYMBOLS" "$SITE"
mkdir -p "$SYMBOLS"
# Symbol graphs of the public API, without the members Swift synthesizes from other modules'
# protocols (`!=` of `Equatable`, and the like), which have no documentation to give.
swift build --target Graft --scratch-path "$SCRATCH" >/dev/null
SDK_ARGS=()
if [ "$(uname)" = Darwin ]; then SDK_ARGS=(-sdk "$(xcrun --show-sdk-path)"); fi
swift symbolgraph-extract -module-name Graft -I "$(swift build --scratch-path "$SCRATCH" --show-bin-path)/Modules" \
    -target "$(swiftc -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["target"]["triple"])')" \
    "${SDK_ARGS[@]}" -output-dir "$SYMBOLS" -skip-synthesized-members -minimum-access-level public

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
check_articles "$SITE"
echo "PASS: docs: built $SITE with no warnings, full coverage and every article"

# 3. swift-docc-plugin, in a copy of the package (its build is kept for the next run).
rm -rf "$PLUGIN_PACKAGE" "$PLUGIN_SITE"
mkdir -p "$PLUGIN_PACKAGE"
tar --exclude='.build*' --exclude='.swiftpm' -cf - Package.swift Sources Tests Documentation | tar -xf - -C "$PLUGIN_PACKAGE"
printf '\npackage.dependencies.append(.package(url: "%s", exact: "%s"))\n' "$PLUGIN_URL" "$PLUGIN_VERSION" \
    >> "$PLUGIN_PACKAGE/Package.swift"
swift package --package-path "$PLUGIN_PACKAGE" --scratch-path "$PLUGIN_SCRATCH" \
    --allow-writing-to-directory "$PLUGIN_SITE" \
    generate-documentation --target Graft --output-path "$PLUGIN_SITE" --transform-for-static-hosting \
    --warnings-as-errors \
    > "$SCRATCH/plugin.log" 2>&1 || { cat "$SCRATCH/plugin.log"; echo "FAIL: docs: the plugin build failed"; exit 1; }
check_articles "$PLUGIN_SITE"
echo "PASS: docs: swift-docc-plugin $PLUGIN_VERSION built $SCRATCH/plugin-site with no warnings and every article"
