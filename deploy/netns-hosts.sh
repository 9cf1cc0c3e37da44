#!/usr/bin/env bash
# Three linked hosts on one machine, for trying links and for the fault test: network namespaces
# PREFIX-hub, PREFIX-build and PREFIX-ci, a veth pair from the hub to each peer, addresses only
# inside those namespaces (10.231.1.0/30 hub-build, 10.231.2.0/30 hub-ci), and with `start` a
# tuios daemon and SSH server in each, with its own XDG folders, the hub linked to both peers.
# Needs root (ip netns). Nothing outside the namespaces it makes is touched.
#
#   deploy/netns-hosts.sh up   [PREFIX]        namespaces, veth pairs, addresses
#   deploy/netns-hosts.sh start DIR [PREFIX]   a daemon per host under DIR, the hub linked to both
#   deploy/netns-hosts.sh stop  DIR            stops those daemons
#   deploy/netns-hosts.sh cut|mend PEER [PREFIX]  takes the hub's veth to build or ci down, or up
#   deploy/netns-hosts.sh down [PREFIX]        removes the namespaces (and with them the veths)
#
# TUIOS is the command that runs tuios (default: node and this checkout's bin/tuios.cjs).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
TUIOS=${TUIOS:-"$(command -v node) $here/bin/tuios.cjs"}
cmd=${1:-}
shift || true

addr() { # NAME -> the host's address (the hub has one per link; this is the one peers dial)
  case "$1" in
    hub) echo 10.231.1.1 ;;
    build) echo 10.231.1.2 ;;
    ci) echo 10.231.2.2 ;;
    *) echo "unknown host $1" >&2; return 1 ;;
  esac
}

need_root() {
  [ "$(id -u)" = 0 ] || { echo "netns-hosts: needs root (ip netns)" >&2; exit 1; }
  ip netns list >/dev/null 2>&1 || { echo "netns-hosts: ip netns does not work here" >&2; exit 1; }
}

up() {
  local p=${1:-tu}
  need_root
  for h in hub build ci; do
    ip netns add "$p-$h"
    ip -n "$p-$h" link set lo up
  done
  # Interface names are at most 15 characters: PREFIX-hb is the hub's end toward build.
  ip link add "$p-hb" netns "$p-hub" type veth peer name "$p-bh" netns "$p-build"
  ip link add "$p-hc" netns "$p-hub" type veth peer name "$p-ch" netns "$p-ci"
  ip -n "$p-hub" addr add 10.231.1.1/30 dev "$p-hb"
  ip -n "$p-build" addr add 10.231.1.2/30 dev "$p-bh"
  ip -n "$p-hub" addr add 10.231.2.1/30 dev "$p-hc"
  ip -n "$p-ci" addr add 10.231.2.2/30 dev "$p-ch"
  for l in "hub $p-hb" "build $p-bh" "hub $p-hc" "ci $p-ch"; do
    set -- $l
    ip -n "$p-$1" link set "$2" up
  done
  echo "netns-hosts: $p-hub (10.231.1.1, 10.231.2.1), $p-build (10.231.1.2), $p-ci (10.231.2.2)"
}

down() {
  local p=${1:-tu}
  need_root
  for h in hub build ci; do ip netns del "$p-$h" 2>/dev/null || true; done
}

link_state() { # cut|mend PEER [PREFIX]
  local what=$1 peer=$2 p=${3:-tu}
  need_root
  local dev
  case "$peer" in build) dev="$p-hb" ;; ci) dev="$p-hc" ;; *) echo "cut/mend build or ci" >&2; exit 2 ;; esac
  ip -n "$p-hub" link set "$dev" "$([ "$what" = cut ] && echo down || echo up)"
}

host_env() { # DIR NAME -> env assignments for that host's daemon and CLI
  local d="$1/$2"
  echo "HOME=$d/home XDG_RUNTIME_DIR=$d/run XDG_CONFIG_HOME=$d/config XDG_STATE_HOME=$d/state TUIOS_SERVER=$d/run/tuios/tuios.sock"
}

start() {
  local dir=${1:?start DIR [PREFIX]} p=${2:-tu}
  need_root
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  for h in hub build ci; do
    local d="$dir/$h"
    mkdir -p "$d/home" "$d/run" "$d/config/tuios" "$d/state"
    chmod 700 "$d/run"
    printf '[link]\nname = "%s"\n[ssh]\nlisten = "%s:2222"\n' "$h" "$(addr "$h")" >"$d/config/tuios/config.toml"
  done
  # The hub logs in to both peers with its own key.
  [ -f "$dir/hub/home/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C "tuios netns hub" -f "$dir/hub/home/id_ed25519"
  for h in build ci; do cp "$dir/hub/home/id_ed25519.pub" "$dir/$h/config/tuios/authorized_keys"; done
  for h in hub build ci; do
    # shellcheck disable=SC2046
    env -i PATH="$PATH" LANG=C.UTF-8 SHELL=/bin/sh $(host_env "$dir" "$h") \
      ip netns exec "$p-$h" $TUIOS daemon --foreground >"$dir/$h/daemon.out" 2>&1 &
    echo $! >"$dir/$h/daemon.pid"
  done
  for h in hub build ci; do
    for _ in $(seq 1 100); do [ -S "$dir/$h/run/tuios/tuios.sock" ] && break; sleep 0.1; done
  done
  for h in build ci; do
    # shellcheck disable=SC2046
    env $(host_env "$dir" hub) $TUIOS hosts add "$h" "$(addr "$h")" --port 2222 --identity "$dir/hub/home/id_ed25519" --yes
  done
  echo "netns-hosts: daemons under $dir; talk to one with: env \$(deploy/netns-hosts.sh env $dir hub) tuios hosts"
}

stop() {
  local dir=${1:?stop DIR}
  for h in hub build ci; do
    [ -f "$dir/$h/daemon.pid" ] || continue
    kill "$(cat "$dir/$h/daemon.pid")" 2>/dev/null || true
    rm -f "$dir/$h/daemon.pid"
  done
}

case "$cmd" in
  up) up "$@" ;;
  down) down "$@" ;;
  start) start "$@" ;;
  stop) stop "$@" ;;
  cut | mend) link_state "$cmd" "$@" ;;
  env) host_env "$@" ;;
  addr) addr "$@" ;;
  *) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
