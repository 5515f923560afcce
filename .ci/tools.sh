#!/usr/bin/env bash
# Install the non-Python tools the tests use (kcat, tmux, Java 17+, Maven, openssl), where this machine allows it.
set -u
need=()
command -v kcat >/dev/null 2>&1 || need+=(kcat)
command -v tmux >/dev/null 2>&1 || need+=(tmux)
if ! command -v java >/dev/null 2>&1; then need+=(openjdk-17-jre-headless); fi
# Maven fetches Apache Kafka's jars for `kafkatui lab` and the real-Kafka tests (once, into ~/.cache)
command -v mvn >/dev/null 2>&1 || need+=(maven)
# openssl makes the certificates of `kafkatui lab --security` and of the TLS tests
command -v openssl >/dev/null 2>&1 || need+=(openssl)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing ${need[*]} with apt-get"
  apt-get update -qq >/dev/null 2>&1 || true
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null 2>&1 \
    || echo "warning: apt-get could not install ${need[*]}; tests that need them will be skipped with a reason"
else
  echo "warning: missing ${need[*]}: install them (Debian: apt-get install ${need[*]}); tests that need them are skipped with a reason"
fi
exit 0
