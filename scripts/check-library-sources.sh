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

# - The resolution state owns its transitions: every stored field of the state machine's types
#   (ResolutionState, its graph GraphState, its FrameStack, its KeptEntries) is `private` or
#   `private(set)`, so the compiler keeps every write to it inside that type's own file, in its
#   transitions.
found=$(python3 - <<'PY'
import pathlib, re
files = {
    "ResolutionState.swift": "ResolutionState", "GraphState.swift": "GraphState", "FrameStack.swift": "FrameStack",
    "KeptEntries.swift": "KeptEntries",
}
for name, owner in files.items():
    path = pathlib.Path("Sources/Graft/Engine/State") / name
    inside = False
    lines = path.read_text().splitlines()
    for number, line in enumerate(lines, 1):
        if re.match(r"^\S", line):  # a declaration at file level opens or closes the type's body
            inside = re.match(rf"^(?:@\w+\s+)*(?:\w+\s+)*struct {owner}\b", line) is not None
            continue
        member = re.match(r"^    (?!\s)((?:@\w+(?:\([^)]*\))?\s+)*)((?:\w+(?:\(set\))?\s+)*)(var|let)\s+\w+", line)
        if not inside or not member or member.group(3) != "var" or "static" in member.group(2):
            continue
        body = line.split("=", 1)[0]
        following = lines[number] if number < len(lines) else ""
        if "{" in body and not re.search(r"\b(didSet|willSet)\b", body + following):
            continue  # computed: `var x: T { ... }`
        if not re.search(r"\bprivate(\(set\))?\s", member.group(2)):
            print(f"{path}:{number}: {line.strip()}")
PY
)
if [ -n "$found" ]; then
    echo "$found"
    echo "FAIL: library sources: a stored field of the resolution state is writable outside its file: make it private(set)"
    exit 1
fi
echo "PASS: library sources: the resolution state's fields change only through its transitions"

# - Messages go through the hierarchy: `SharedState.log` holds a message while the hierarchy's
#   mutex is held and delivers it once released, so the logging function, user code, never runs
#   under Graft's lock. `Container.log` delivers at once: it is called only in SharedState.swift,
#   in Container+Logging.swift, and where no hierarchy is at hand (a line marked `no hierarchy`).
found=$(python3 - <<'PY'
import pathlib, re
allowed = {"Sources/Graft/Engine/State/SharedState.swift", "Sources/Graft/Container+Logging.swift"}
for path in sorted(pathlib.Path("Sources/Graft").rglob("*.swift")):
    if str(path) in allowed:
        continue
    lines = path.read_text().splitlines()
    for number, line in enumerate(lines, 1):
        code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line).split("//", 1)[0]
        marked = "no hierarchy" in line or number > 1 and "no hierarchy" in lines[number - 2]
        if re.search(r"\bContainer\.log\s*[({]", code) and not marked:
            print(f"{path}:{number}: {line.strip()}")
PY
)
if [ -n "$found" ]; then
    echo "$found"
    echo "FAIL: library sources: Container.log called past the hierarchy: call hierarchy.log, which holds the message under the mutex"
    exit 1
fi
echo "PASS: library sources: messages go through the hierarchy"
