#!/usr/bin/env bash
# Rules for the library's sources that the compiler does not enforce. Fails naming each line.
# - No `try?`: on a call whose result is itself optional (a resolution of an `Optional` service, a
#   construction that opens a request only at the base), `try?` flattens the success's `nil` into
#   the failure's, so the code takes a success for a failure (or the reverse) without a word.
#   Write `do { ... } catch { ... }`, which keeps the two apart.
set -euo pipefail
cd "$(dirname "$0")/.."
found=$(python3 - <<'PY'
import pathlib, re
for path in sorted(pathlib.Path("Sources/Graft").rglob("*.swift")):
    for number, line in enumerate(path.read_text().splitlines(), 1):
        code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line).split("//", 1)[0]  # strings and comments out
        if re.search(r"\btry\?", code):
            print(f"{path}:{number}: {line.strip()}")
PY
)
if [ -n "$found" ]; then
    echo "$found"
    echo "FAIL: library sources: \`try?\` in Sources/Graft (see scripts/check-library-sources.sh): write do/catch"
    exit 1
fi
echo "PASS: library sources: no try? in Sources/Graft"
