#!/usr/bin/env bash
# Install the non-Python tools the tests use (kcat, tmux, openssl, Chromium, Java 17+, Maven). As root it installs
# what is missing with apt-get; it fails, naming what is missing, when it cannot: a suite that skips
# what it cannot run is not green.
set -u
need=()
command -v kcat >/dev/null 2>&1 || need+=(kcat)
command -v tmux >/dev/null 2>&1 || need+=(tmux)
# TLS tests make their certificates with openssl; the secured lab with openssl and keytool
command -v openssl >/dev/null 2>&1 || need+=(openssl)
# the postmortem report's HTML is checked in Debian's headless Chromium
command -v chromium >/dev/null 2>&1 || need+=(chromium)
java_ok() {
  command -v java >/dev/null 2>&1 || return 1
  local v
  v=$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)
  [ -n "$v" ] && [ "$v" -ge 17 ]
}
java_ok || need+=(openjdk-17-jdk-headless)
# Maven fetches Apache Kafka's jars for `kafkatui lab` and the real-Kafka tests (once, into ~/.cache)
command -v mvn >/dev/null 2>&1 || need+=(maven)
# openssl makes the certificates of `kafkatui lab --security` and of the TLS tests
command -v openssl >/dev/null 2>&1 || need+=(openssl)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "missing ${need[*]}: install them (Debian: sudo apt-get install ${need[*]}), then run make test again" >&2
  exit 1
fi
echo "installing ${need[*]} with apt-get"
if ! apt-get update -qq >/dev/null 2>&1; then
  echo "apt-get update failed: cannot install ${need[*]}" >&2
  exit 1
fi
if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null 2>&1; then
  echo "apt-get could not install ${need[*]}: install them by hand, then run make test again" >&2
  exit 1
fi
java_ok || { echo "Java 17+ is still missing after the install" >&2; exit 1; }
exit 0
