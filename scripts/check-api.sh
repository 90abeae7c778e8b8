#!/usr/bin/env bash
# Records the public API of the Graft and GraftTesting modules with the toolchain's
# swift-api-digester and compares it with the baselines checked in under api/. Any change to the
# public surface fails this check until the baseline is updated in the same commit, so every API
# change shows as a diff; removals and signature changes are also listed as breaking.
#   scripts/check-api.sh            check
#   scripts/check-api.sh --update   rewrite api/*.txt from the current code
# The baseline is a text rendering of the digester's dump (one declaration per line, nested by
# indentation, imports left out), so the diff shows the change as readable lines and the same
# baseline holds on Linux and macOS.
set -euo pipefail
cd "$(dirname "$0")/.."

SCRATCH=.build-api
swift build --scratch-path "$SCRATCH" --target GraftTesting >/dev/null
MODULES="$(swift build --scratch-path "$SCRATCH" --show-bin-path)/Modules"
TRIPLE=$(swiftc -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["target"]["triple"])')
SDK_ARGS=()
if [ "$(uname)" = Darwin ]; then SDK_ARGS=(-sdk "$(xcrun --show-sdk-path)"); fi

status=0
for module in Graft GraftTesting; do
    dump="$SCRATCH/$module.json"
    current="$SCRATCH/$module.txt"
    swift-api-digester -dump-sdk -module "$module" -I "$MODULES" -target "$TRIPLE" "${SDK_ARGS[@]}" \
        -avoid-location -avoid-tool-args -o "$dump"
    python3 - "$dump" "$current" <<'PY'
import json, sys
root = json.load(open(sys.argv[1]))["ABIRoot"]
lines = []
def walk(node, depth):
    for child in node.get("children", []):
        kind = child.get("declKind") or child.get("kind")
        if kind == "Import" or child.get("kind") not in ("TypeDecl", "Function", "Var", "Constructor",
                                                          "Subscript", "TypeAlias", "AssociatedType",
                                                          "Accessor", "Operator", "Macro"):
            continue
        flags = [name for name in ("throwing", "isStatic", "isOpen", "isFinal") if child.get(name)]
        flags += [child["funcSelfKind"]] if child.get("funcSelfKind") in ("Mutating",) else []
        types = [type_node.get("printedName") for type_node in child.get("children", []) if type_node.get("kind", "").startswith("Type")]
        signature = ""
        if kind in ("Func", "Constructor", "Subscript") and types:
            signature = " (" + ", ".join(types[1:]) + ") -> " + types[0]
        elif kind == "Var" and types:
            signature = ": " + types[0]
        generic = f" {child['genericSig']}" if child.get("genericSig") else ""
        extra = ("  [" + ", ".join(flags) + "]") if flags else ""
        lines.append("    " * depth + f"{kind} {child.get('printedName')}{generic}{signature}{extra}")
        walk(child, depth + 1)
walk(root, 0)
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
PY
    baseline="api/$module.txt"
    if [ "${1:-}" = "--update" ]; then
        cp "$current" "$baseline"
        echo "api: wrote $baseline"
        continue
    fi
    if ! cmp -s "$current" "$baseline"; then
        echo "FAIL: api: the public API of $module differs from $baseline"
        diff -u "$baseline" "$current" | sed 's/^/  /' | head -60 || true
        echo "  If the change is intended, run scripts/check-api.sh --update and commit api/$module.txt."
        status=1
    else
        echo "PASS: api: $module matches $baseline"
    fi
done
exit $status
