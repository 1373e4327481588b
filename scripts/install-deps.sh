#!/usr/bin/env bash
# Installs what kjudge needs on a fresh Debian/Ubuntu machine, skipping what is already there.
# Build: cmake, ninja, g++, and the Debian-packaged libraries (CLI11, nlohmann-json, fmt,
# toml++, SQLite, libpqxx, OpenSSL, libseccomp, GoogleTest, Eigen); the PostgreSQL server, which the
# store's tests start as a throwaway (scripts/local-postgres.sh); clang-format and clang-tidy for `make lint`;
# python3-jsonschema for scripts/validate-result.py (the tests validate every result they write);
# chromium, in which the tests open the HTML reports headless (tests/integration/test_html_browser.cpp);
# slurm-wlm and munge for the one-node cluster of `kjudge batch --slurm`'s test and
# scripts/local-cluster.sh (which starts its own daemons, whatever the packages' services do).
set -euo pipefail
pkgs=(cmake ninja-build g++ make pkg-config libcli11-dev nlohmann-json3-dev libfmt-dev
      libtomlplusplus-dev libsqlite3-dev libpqxx-dev postgresql libssl-dev libseccomp-dev libgtest-dev libeigen3-dev
      clang-format clang-tidy python3-jsonschema chromium slurm-wlm munge)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all packages present"
fi
