#!/usr/bin/env bash
# Renders the real release binary to PNGs for the README:
#   assets/demo.png          the guided demo (`mcscope demo`), stage 4/5, the wire payload
#   assets/demo-idle.png     stage 5/5, the idle-clearing-by-rewrite contrast
#   assets/compare-panel.png the compare panel (`c`) on the demo session
#   assets/compare-html.png  `mcscope compare --format html` of the demo session, in headless Chromium
# The binary runs in a detached 120x40 tmux session; the coloured screen is captured with
# `tmux capture-pane -e`, converted to HTML by aha (or PyPI's ansi2html) and shot by headless Chromium.
# Usage: scripts/screenshot.sh   (from anywhere; installs tmux, aha, chromium and fonts if missing)
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
COLS=120
ROWS=40
# Cell size of 14px DejaVu Sans Mono at line-height 1.2, plus the page padding on each side.
CELL_W=8.43
CELL_H=16.8
PAD=8
W=$(awk -v c="$COLS" -v w="$CELL_W" -v p="$PAD" 'BEGIN { printf "%d", c * w + 2 * p + 2 }')
H=$(awk -v r="$ROWS" -v h="$CELL_H" -v p="$PAD" 'BEGIN { printf "%d", r * h + 2 * p + 2 }')

# --- tools -------------------------------------------------------------------------------
apt_updated=0
apt_install() {
    if [ "$apt_updated" = 0 ]; then
        apt-get update
        apt_updated=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@"
}

command -v tmux >/dev/null || apt_install tmux
command -v python3 >/dev/null || apt_install python3
if ! command -v chromium >/dev/null || [ ! -e /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf ]; then
    apt_install chromium fonts-dejavu-core
fi
CONVERTER=aha
if ! command -v aha >/dev/null; then
    if ! apt_install aha; then
        CONVERTER=ansi2html
        command -v ansi2html >/dev/null || python3 -m pip install --quiet ansi2html
    fi
fi

cargo build --release
BIN="$ROOT/target/release/mcscope"

# --- session -----------------------------------------------------------------------------
WORK=$(mktemp -d)
tmx() { tmux -L shot -f /dev/null "$@"; }
cleanup() {
    tmx kill-server 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
tmx kill-server 2>/dev/null || true

# Waits until the pane shows the text (fixed string), up to 10 s.
wait_for() {
    local i screen
    for i in $(seq 100); do
        if screen=$(tmx capture-pane -p -t shot) && grep -qF -- "$1" <<<"$screen"; then
            return 0
        fi
        sleep 0.1
    done
    echo "screenshot.sh: timed out waiting for '$1'; the screen was:" >&2
    tmx capture-pane -p -t shot >&2 || true
    exit 1
}

# Rewrites the captured SGR sequences into plain, self-contained ones: every colour as 24-bit
# RGB from one dark palette, reverse video resolved into swapped colours. aha mishandles reverse
# video (its colours go wrong or come out as bytes that are not UTF-8) and maps the 16 basic
# colours to harsh CSS names; after this it only has to copy RGB values.
normalise() {
    python3 - "$1" "$2" <<'PY'
import re, sys

src, dst = sys.argv[1], sys.argv[2]
FG, BG = (0xCC, 0xCC, 0xCC), (0x1E, 0x1E, 0x1E)  # the default foreground and background
BASIC = [  # the 16 basic colours
    (0x00, 0x00, 0x00), (0xCD, 0x31, 0x31), (0x0D, 0xBC, 0x79), (0xE5, 0xE5, 0x10),
    (0x24, 0x72, 0xC8), (0xBC, 0x3F, 0xBC), (0x11, 0xA8, 0xCD), (0xE5, 0xE5, 0xE5),
    (0x76, 0x76, 0x76), (0xF1, 0x4C, 0x4C), (0x23, 0xD1, 0x8B), (0xF5, 0xF5, 0x43),
    (0x3B, 0x8E, 0xEA), (0xD6, 0x70, 0xD6), (0x29, 0xB8, 0xDB), (0xF2, 0xF2, 0xF2),
]

def indexed(n):
    if n < 16:
        return BASIC[n]
    if n < 232:
        n -= 16
        step = lambda v: 0 if v == 0 else 55 + 40 * v
        return (step(n // 36), step(n // 6 % 6), step(n % 6))
    v = 8 + 10 * (n - 232)
    return (v, v, v)

state = dict(bold=False, dim=False, italic=False, under=False, rev=False, fg=None, bg=None)

def colour(params, i):
    """The colour of a 38/48 sequence starting at params[i], and the index after it."""
    if params[i + 1 : i + 2] == [5] and i + 2 < len(params):
        return indexed(params[i + 2]), i + 3
    if params[i + 1 : i + 2] == [2] and i + 4 < len(params):
        return tuple(params[i + 2 : i + 5]), i + 5
    return None, len(params)

def apply(params):
    if not params:
        params = [0]
    i = 0
    while i < len(params):
        p = params[i]
        if p == 0:
            state.update(bold=False, dim=False, italic=False, under=False, rev=False, fg=None, bg=None)
        elif p == 1: state["bold"] = True
        elif p == 2: state["dim"] = True
        elif p == 3: state["italic"] = True
        elif p == 4: state["under"] = True
        elif p == 7: state["rev"] = True
        elif p == 22: state.update(bold=False, dim=False)
        elif p == 23: state["italic"] = False
        elif p == 24: state["under"] = False
        elif p == 27: state["rev"] = False
        elif 30 <= p <= 37: state["fg"] = BASIC[p - 30]
        elif 40 <= p <= 47: state["bg"] = BASIC[p - 40]
        elif 90 <= p <= 97: state["fg"] = BASIC[p - 90 + 8]
        elif 100 <= p <= 107: state["bg"] = BASIC[p - 100 + 8]
        elif p == 39: state["fg"] = None
        elif p == 49: state["bg"] = None
        elif p in (38, 48):
            c, i = colour(params, i)
            state["fg" if p == 38 else "bg"] = c
            continue
        i += 1

def emit():
    fg, bg = state["fg"] or FG, state["bg"]
    if state["rev"]:
        fg, bg = bg or BG, fg
    if state["dim"]:
        base = bg or BG
        fg = tuple((a + b) // 2 for a, b in zip(fg, base))
    out = [0]
    if state["bold"]: out.append(1)
    if state["italic"]: out.append(3)
    if state["under"]: out.append(4)
    out += [38, 2, *fg]
    if bg is not None:
        out += [48, 2, *bg]
    return "\x1b[" + ";".join(map(str, out)) + "m"

def sgr(m):
    apply([int(x) if x else 0 for x in m.group(1).split(";")])
    return emit()

text = open(src, encoding="utf-8").read()
text = re.sub(r"\x1b\[[0-9;?]*[A-Za-ln-z]", "", text)  # any other CSI sequence (none expected)
text = emit() + re.sub(r"\x1b\[([0-9;]*)m", sgr, text)
open(dst, "w", encoding="utf-8").write(text + "\x1b[0m")
PY
}

# Captures the pane with its colours and renders it to the PNG given.
shoot() {
    local out=$1
    rm -f "$ROOT/$out"
    sleep 0.3 # let the frame settle after the last redraw
    tmx capture-pane -e -p -t shot >"$WORK/x.ansi"
    normalise "$WORK/x.ansi" "$WORK/x.rgb.ansi"
    local css="pre{font-family:'DejaVu Sans Mono',monospace;font-size:14px;line-height:1.2;margin:0}"
    # Inline backgrounds cover the font's ascent+descent only, a little less than a line: stretch
    # them down by a pixel, or a highlighted row hides its underscores and stacked rows show seams.
    css+="pre span{padding-bottom:1px}pre{white-space:pre !important}"
    css+="body{margin:0;padding:${PAD}px;background:#1e1e1e !important;color:#cccccc !important}"
    if [ "$CONVERTER" = aha ]; then
        aha --black --title mcscope <"$WORK/x.rgb.ansi" >"$WORK/x.html"
    else
        ansi2html --title mcscope <"$WORK/x.rgb.ansi" >"$WORK/x.html"
    fi
    # The style goes last in <head>, so it wins over the converter's own.
    python3 - "$WORK/x.html" "$css" <<'PY'
import sys
path, css = sys.argv[1], sys.argv[2]
html = open(path, encoding="utf-8").read()
html = html.replace("</head>", "<style>" + css + "</style>\n</head>", 1)
open(path, "w", encoding="utf-8").write(html)
PY
    chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$WORK/profile-$(basename "$out" .png)" --hide-scrollbars \
        --window-size="$W,$H" --screenshot="$ROOT/$out" "file://$WORK/x.html" 2>"$WORK/chromium.log" ||
        { cat "$WORK/chromium.log" >&2; exit 1; }
    [ -s "$ROOT/$out" ] || { echo "screenshot.sh: chromium wrote no $out" >&2; cat "$WORK/chromium.log" >&2; exit 1; }
    echo "wrote $out ($(stat -c %s "$ROOT/$out") bytes, ${W}x${H})"
}

tmx new-session -d -s shot -x "$COLS" -y "$ROWS" \
    "env -u NO_COLOR TERM=xterm-256color '$BIN' demo"
wait_for "mcscope demo"

for _ in 1 2 3; do
    tmx send-keys -t shot Right
    sleep 0.3
done
wait_for "(4/5)"
wait_for "4. The wire payload: cache_edits and cache_reference"
mkdir -p assets
shoot assets/demo.png

tmx send-keys -t shot Right
wait_for "(5/5)"
wait_for "5. The contrast: idle clearing by rewrite"
shoot assets/demo-idle.png

tmx kill-server 2>/dev/null || true

# The compare panel: the demo session opened with count, `c`, the rows arrived.
tmx new-session -d -s shot -x "$COLS" -y "$ROWS" \
    "env -u NO_COLOR TERM=xterm-256color '$BIN' '$ROOT/sample-sessions/claude-demo.jsonl' --policy count"
wait_for "request 6/6"
tmx send-keys -t shot c
wait_for "recommended: row 0"
for _ in 1 2 3 4 5 6; do
    tmx send-keys -t shot Down
done
shoot assets/compare-panel.png

# The HTML report, as a browser shows it (the top of the page: the chart and the first rows).
(cd "$ROOT" && "$BIN" compare sample-sessions/claude-demo.jsonl --format html -o "$WORK/compare.html" --quiet)
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$WORK/profile-html" --hide-scrollbars \
    --window-size=1250,1000 --screenshot="$ROOT/assets/compare-html.png" "file://$WORK/compare.html" 2>"$WORK/chromium.log" ||
    { cat "$WORK/chromium.log" >&2; exit 1; }
[ -s "$ROOT/assets/compare-html.png" ] || { echo "screenshot.sh: chromium wrote no compare-html.png" >&2; exit 1; }
echo "wrote assets/compare-html.png ($(stat -c %s "$ROOT/assets/compare-html.png") bytes, 1250x1000)"
