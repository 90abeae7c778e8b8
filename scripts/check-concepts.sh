#!/usr/bin/env bash
# Checks the table "Where each concept lives" of the contributor guide
# (Documentation/Internals/README.md): each row's file must exist and declare each type its Type
# cell names (as a class, struct, enum, protocol, actor, typealias, or an extension of it),
# outside comments. Fails listing every bad row with what to change, so the table follows the
# code when the code moves.
#   scripts/check-concepts.sh          check the guide
#   scripts/check-concepts.sh GUIDE    check the table of another file (the same section and columns)
# Paths in the table are relative to the repository's root.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
case "${1-}" in
    -h | --help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
[ "$#" -le 1 ] || { echo "usage: scripts/check-concepts.sh [GUIDE]" >&2; exit 2; }
GUIDE=$(python3 -c 'import os, sys; print(os.path.abspath(sys.argv[1]))' "${1:-$ROOT/Documentation/Internals/README.md}")

python3 - "$ROOT" "$GUIDE" <<'PY'
import os, re, sys

root, guide = sys.argv[1], sys.argv[2]
SECTION = "## Where each concept lives"
KINDS = "class|struct|enum|protocol|actor|typealias|extension"
shown = os.path.relpath(guide, root) if guide.startswith(root + os.sep) else guide

def fail(message):
    print(f"FAIL: concepts: {shown}: {message}")
    sys.exit(1)

if not os.path.isfile(guide):
    fail("no such file")

# The table: the first run of `|` lines after the section's heading.
lines = open(guide, encoding="utf-8").read().split("\n")
try:
    start = next(i for i, line in enumerate(lines) if line.strip() == SECTION)
except StopIteration:
    fail(f"no section '{SECTION}'; the table of concepts goes under that heading")
rows, in_table = [], False
for number in range(start + 1, len(lines)):
    line = lines[number].strip()
    if line.startswith("## "):
        break
    if line.startswith("|"):
        in_table = True
        rows.append((number + 1, line))
    elif in_table:
        break
if len(rows) < 3:
    fail(f"no table under '{SECTION}' (a header Concept | File | Type, its separator, then one row per concept)")

def cells(line):
    return [cell.strip() for cell in line.strip().strip("|").split("|")]

header = [cell.lower() for cell in cells(rows[0][1])]
if header != ["concept", "file", "type"]:
    fail(f"line {rows[0][0]}: the table's columns are {cells(rows[0][1])}; expected Concept | File | Type")

def without_comments(text):
    """The Swift source with its comments (line, doc, and nested block comments) and string
    literals blanked, lines kept: neither declares anything, and a `//` inside a string is no
    comment."""
    out, i, n, depth = [], 0, len(text), 0
    while i < n:
        if depth:
            if text.startswith("/*", i):
                depth, i = depth + 1, i + 2
            elif text.startswith("*/", i):
                depth, i = depth - 1, i + 2
            else:
                out.append("\n" if text[i] == "\n" else " ")
                i += 1
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
        elif text[i] == '"' or (text[i] == "#" and re.match(r'#+"', text[i:])):
            hashes = len(re.match(r'#*', text[i:]).group())
            quotes = '"""' if text.startswith('"""', i + hashes) else '"'
            close = quotes + "#" * hashes
            j = i + hashes + len(quotes)
            while j < n and not text.startswith(close, j):
                j += 2 if text[j] == "\\" and not hashes else 1
            out.append(re.sub(r"[^\n]", " ", text[i:j + len(close)]))
            i = j + len(close)
        else:
            out.append(text[i])
            i += 1
    return "".join(out)

# A declaration: at the start of a line, after any attributes and modifiers.
PREFIX = (r"^[ \t]*(?:@[\w.]+(?:\([^)\n]*\))?\s+)*"
          r"(?:(?:public|package|internal|fileprivate|private|open|final|indirect|nonisolated|"
          r"distributed)(?:\([^)\n]*\))?\s+)*")
def declares(source, name):
    return re.search(PREFIX + rf"(?:{KINDS})\s+{re.escape(name)}\b", source, re.M) is not None
def declared_names(source):
    return sorted(set(re.findall(PREFIX + rf"(?:{KINDS})\s+(\w+)", source, re.M)) - {"func", "var", "let", "subscript", "init"})

sources_cache = {}
def source_of(path):
    if path not in sources_cache:
        sources_cache[path] = without_comments(open(path, encoding="utf-8").read())
    return sources_cache[path]

def where_declared(name):
    """The Swift files under Sources/ that declare `name` (not as an extension), to suggest."""
    found = []
    for directory, _, files in os.walk(os.path.join(root, "Sources")):
        for file in sorted(files):
            if file.endswith(".swift"):
                path = os.path.join(directory, file)
                if re.search(PREFIX + rf"(?:class|struct|enum|protocol|actor|typealias)\s+{re.escape(name)}\b",
                             source_of(path), re.M):
                    found.append(os.path.relpath(path, root))
    return sorted(found)

problems, bad_rows, checked = [], set(), 0
for number, line in rows[2:]:
    row = cells(line)
    if len(row) != 3:
        problems.append(f"line {number}: {len(row)} cells, expected 3 (Concept | File | Type): {line}")
        bad_rows.add(number)
        continue
    concept, file, types = row[0], row[1].strip("`"), [t.strip().strip("`") for t in row[2].split(",")]
    checked += 1
    where = f"line {number} ({concept})"
    if not file or not all(types):
        problems.append(f"{where}: a File and at least one Type are needed")
        bad_rows.add(number)
        continue
    path = os.path.join(root, file)
    if not os.path.isfile(path):
        hints = sorted({place for name in types for place in where_declared(name)})
        hint = f"; {', '.join(types)} {'is' if len(types) == 1 else 'are'} declared in {', '.join(hints)}" if hints else ""
        problems.append(f"{where}: {file} does not exist{hint}. Point the row at the file that holds the concept, "
                        "or remove the row if the concept is gone.")
        bad_rows.add(number)
        continue
    source = source_of(path)
    for name in types:
        if declares(source, name):
            continue
        elsewhere = [place for place in where_declared(name) if place != file]
        listed = ", ".join(declared_names(source)) or "no type"
        hint = (f" {name} is declared in {', '.join(elsewhere)}: point the row there." if elsewhere
                else f" The file declares or extends {listed}: name the one that holds the concept.")
        problems.append(f"{where}: {file} declares no class, struct, enum, protocol, actor or typealias named "
                        f"{name}, nor an extension of it.{hint}")
        bad_rows.add(number)

for problem in problems:
    print(f"FAIL: concepts: {shown}: {problem}")
if problems:
    print(f"FAIL: concepts: {len(bad_rows)} of {len(rows) - 2} rows to fix in the table '{SECTION[3:]}' of {shown}")
    sys.exit(1)
print(f"PASS: concepts: {checked} rows")
PY
