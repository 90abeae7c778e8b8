#!/usr/bin/env bash
# Opens the documentation sites scripts/build-docs.sh built (the toolchain's, .build-docs/site, and
# swift-docc-plugin's, .build-docs/plugin-site, as the Swift Package Index builds it) in a real
# headless browser (Chromium, installed from the system packages when missing) and checks, on each:
#   - the landing page: its title, and its links to symbols and to every article of Documentation/;
#   - one article (Thread safety) and one symbol page (Container): their titles;
#   - no broken link: every /documentation/... link on those pages has its page data.
# To look at a page yourself: scripts/README.md has the screenshot command.
set -euo pipefail
cd "$(dirname "$0")/.."

SITES=(.build-docs/site .build-docs/plugin-site)
for SITE in "${SITES[@]}"; do
    [ -d "$SITE/documentation/graft" ] || { echo "FAIL: docs-browser: no $SITE: build the sites first (scripts/build-docs.sh)"; exit 1; }
done
ARTICLES=$(for article in Documentation/*.md; do basename "$article" .md; done | grep -vx Graft | tr '[:upper:]' '[:lower:]' | tr '\n' ' ')

BROWSER=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$BROWSER" ]; then
    echo "docs-browser: installing chromium from the system packages"
    (apt-get install -y chromium >/dev/null 2>&1 || (apt-get update >/dev/null 2>&1 && apt-get install -y chromium >/dev/null 2>&1)) \
        || { echo "FAIL: docs-browser: could not install chromium"; exit 1; }
    BROWSER=$(command -v chromium)
fi

# Serves one site on a free local port and checks it in the browser; fails the script on a failure.
check_site() {
    local SITE=$1
    PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$SITE" >/dev/null 2>&1 &
    SERVER=$!
    trap 'kill $SERVER 2>/dev/null || true' EXIT
    for _ in $(seq 1 50); do
        python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$PORT/')" 2>/dev/null && break
        python3 -c 'import time; time.sleep(0.1)'  # waiting for the server to listen, not for a result
    done

python3 - "$PORT" "$SITE" "$ARTICLES" <<PY
import html.parser, subprocess, sys, urllib.request

port, site, articles = sys.argv[1], sys.argv[2], sys.argv[3].split()
browser = "$BROWSER"

def render(path):
    return subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--virtual-time-budget=15000", "--dump-dom", f"http://127.0.0.1:{port}{path}"],
        capture_output=True, text=True, timeout=120).stdout

class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.in_title, self.in_h1, self.title, self.headings = [], False, False, "", []
    def handle_starttag(self, tag, attrs):
        if tag == "a":
            href = dict(attrs).get("href") or ""
            if href.startswith("/documentation/"):
                self.links.append(href.split("#")[0])
        self.in_title |= tag == "title"
        if tag == "h1":
            self.in_h1 = True
            self.headings.append("")
    def handle_endtag(self, tag):
        if tag == "title": self.in_title = False
        if tag == "h1": self.in_h1 = False
    def handle_data(self, data):
        if self.in_title: self.title += data
        if self.in_h1: self.headings[-1] += data

failures = []
def check(path, heading):
    page = Page()
    page.feed(render(path))
    # The static page has one h1 ("This page requires JavaScript."); the rendered page adds its own.
    headings = [text.strip() for text in page.headings]
    if heading not in headings:
        failures.append(f"{path}: headings {headings}, expected {heading!r} (title {page.title.strip()!r})")
    print(f"docs-browser: {site}{path} renders '{heading if heading in headings else headings}' "
          f"(title '{page.title.strip()}') with {len(set(page.links))} documentation links")
    return page

landing = check("/documentation/graft/", "Graft")
article = check("/documentation/graft/threadsafety", "Thread safety")
symbol = check("/documentation/graft/container", "Container")
if "/documentation/graft/container" not in landing.links:
    failures.append("the landing page has no link to the Container symbol page")
for name in articles:
    if f"/documentation/graft/{name}" not in landing.links:
        failures.append(f"the landing page has no link to the article {name}")
links = set(landing.links + article.links + symbol.links)
broken = []
for link in sorted(links):
    data = f"http://127.0.0.1:{port}/data{link.rstrip('/')}.json"
    try:
        urllib.request.urlopen(data, timeout=10)
    except Exception:
        broken.append(link)
print(f"docs-browser: {site}: {len(links)} distinct documentation links checked, {len(broken)} broken")
failures += [f"broken link: {link}" for link in broken]
for failure in failures:
    print(f"FAIL: docs-browser: {site}:", failure)
sys.exit(1 if failures else 0)
PY
    kill $SERVER 2>/dev/null || true
    wait $SERVER 2>/dev/null || true
    trap - EXIT
}

for SITE in "${SITES[@]}"; do check_site "$SITE"; done
echo "PASS: docs-browser: on both sites the landing page (linking every article), an article and a symbol page render, no broken links"
