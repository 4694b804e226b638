#!/usr/bin/env bash
# Opens numlab-gui in a real X window on a virtual display (Xvfb), moves to
# a tab with the keyboard as a user would (xdotool: Ctrl+Tab, N times),
# waits, and saves a picture of the whole screen: the check that a view works
# in a window, not only in --screenshot's off-screen rendering.
#
#   scripts/gui-window-check.sh [-b BUILD_DIR] [-t TABS] [-w SECONDS] OUT.png RUN.db [RUN.db...]
#
# TABS: how many Ctrl+Tab presses from the first tab (Problems); the window's
# tab order is Problems, Overview, map, Histograms, Swamping, Scales, Events,
# Compare, Runs. Needs xvfb, xdotool, x11-apps (xwd) and netpbm.
set -euo pipefail
build=build tabs=0 wait_s=8
while getopts b:t:w: opt; do
  case $opt in
    b) build=$OPTARG ;;
    t) tabs=$OPTARG ;;
    w) wait_s=$OPTARG ;;
    *) echo "usage: $0 [-b BUILD_DIR] [-t TABS] [-w SECONDS] OUT.png RUN.db..." >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -lt 2 ]; then
  echo "usage: $0 [-b BUILD_DIR] [-t TABS] [-w SECONDS] OUT.png RUN.db..." >&2
  exit 2
fi
out=$1
shift
for tool in Xvfb xdotool xwd xwdtopnm pnmtopng; do
  command -v "$tool" > /dev/null || { echo "gui-window-check: $tool is missing (apt-get install xvfb xdotool x11-apps netpbm)" >&2; exit 2; }
done
[ -x "$build/numlab-gui" ] || { echo "gui-window-check: $build/numlab-gui is not built" >&2; exit 2; }

display=:$((90 + RANDOM % 100))
Xvfb "$display" -screen 0 1600x1000x24 -nolisten tcp > /dev/null 2>&1 &
xvfb=$!
gui=
cleanup() {
  [ -n "$gui" ] && kill "$gui" 2> /dev/null || true
  kill "$xvfb" 2> /dev/null || true
}
trap cleanup EXIT
export DISPLAY=$display
for _ in $(seq 50); do xdotool getdisplaygeometry > /dev/null 2>&1 && break; sleep 0.1; done

# A scratch settings directory: the user's remembered geometry stays out of it.
XDG_CONFIG_HOME=$(mktemp -d) QT_QPA_PLATFORM=xcb "$build/numlab-gui" "$@" &
gui=$!
window=
for _ in $(seq 100); do
  window=$(xdotool search --name '^numlab-gui' 2> /dev/null | head -n 1) && [ -n "$window" ] && break
  sleep 0.2
done
[ -n "$window" ] || { echo "gui-window-check: no numlab-gui window appeared" >&2; exit 1; }
xdotool windowactivate --sync "$window" 2> /dev/null || xdotool windowfocus --sync "$window"
sleep 1
for _ in $(seq "$tabs"); do
  xdotool key --window "$window" ctrl+Tab
  sleep 0.3
done
sleep "$wait_s"
kill -0 "$gui" 2> /dev/null || { echo "gui-window-check: numlab-gui exited" >&2; exit 1; }
xwd -root -silent | xwdtopnm 2> /dev/null | pnmtopng > "$out"
echo "gui-window-check: $(xdotool getwindowname "$window") -> $out"
