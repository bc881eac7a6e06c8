#!/usr/bin/env bash
# Renders the fixture batch, loads report.html in headless Chromium from
# file://, and writes screenshots of the board and of one submission page.
# Fails when a screenshot is missing or blank-sized, when the parsed page
# holds a script, an iframe, an image or an external reference, or when the
# HTML names a network URL. Exit 77 (skipped) without chromium.
#   chromium_screenshots.sh REPORT_RENDER FIXTURE_BATCH OUT_DIR
set -euo pipefail
render=$1 fixture=$2 out=$3

browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z "$browser" ]]; then
  echo "SKIP: chromium is not installed (scripts/setup.sh installs it)"
  exit 77
fi

rm -rf "$out"
mkdir -p "$out"
cp -r "$fixture" "$out/batch"
"$render" "$out/batch"          # from the repository root: the sources resolve
html="$out/batch/report.html"
url="file://$(cd "$out/batch" && pwd)/report.html"

fail() { echo "FAIL: $*"; exit 1; }

# Nothing in the file may point at the network.
# (Inside tags only: escaped text from a submission may say anything.)
if grep -Eio '<[^>]*[[:space:]](src|href|action|srcset|poster|data)[[:space:]]*=[[:space:]]*"?[[:space:]]*(https?:|//|ftp:)' "$html"; then
  fail "report.html references the network"
fi
if grep -Eio 'https?://' "$html"; then fail "report.html names a URL"; fi
grep -q 'Content-Security-Policy' "$html" || fail "no Content-Security-Policy"

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
chrome() {
  timeout 90 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --disable-default-apps \
    --disable-extensions --hide-scrollbars --user-data-dir="$profile" --window-size=1400,1000 "$@" 2>>"$out/chromium.log"
}

# The DOM as the browser parsed it: no element that could fetch or run anything.
chrome --dump-dom "$url" > "$out/dom.html" || fail "chromium could not load the page (see $out/chromium.log)"
grep -q 'id="board"' "$out/dom.html" || fail "the parsed page has no board"
if grep -Eio '<(script|iframe|img|object|embed|link|audio|video|frame)[ >]' "$out/dom.html"; then
  fail "the parsed page holds an element that loads or runs something"
fi

shot() {  # NAME FRAGMENT
  rm -f "$out/$1.png"
  chrome --screenshot="$out/$1.png" "$url${2:+#$2}" >/dev/null || fail "chromium failed on #$2"
  [[ -s "$out/$1.png" ]] || fail "$1.png was not written"
  local size w h
  size=$(stat -c %s "$out/$1.png")
  # PNG signature, then the IHDR chunk: width and height, big-endian, at bytes 16-23.
  [[ $(head -c 8 "$out/$1.png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] || fail "$1.png is not a PNG"
  w=$(od -An -tu1 -j16 -N4 "$out/$1.png" | awk '{print $1*16777216+$2*65536+$3*256+$4}')
  h=$(od -An -tu1 -j20 -N4 "$out/$1.png" | awk '{print $1*16777216+$2*65536+$3*256+$4}')
  echo "$1.png: ${w}x${h}, $size bytes"
  (( w >= 1000 && h >= 700 )) || fail "$1.png is ${w}x${h}"
  (( size > 20000 )) || fail "$1.png is only $size bytes: a blank page?"
}
shot board ""
shot submission s-topk-cheat-cache-data-ptr
echo "screenshots in $out"
