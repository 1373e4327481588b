#!/usr/bin/env bash
# Fills .deps/ (git-ignored) with the Debian packages kjudge builds against, unpacked, so that a
# machine that cannot install anything (the GPU machine) can build with them: run this here, then
# carry .deps to that machine. CMakeLists.txt prefers .deps/usr when it exists.
set -euo pipefail
cd "$(dirname "$0")/.."
pkgs=(libcli11-dev nlohmann-json3-dev libtomlplusplus-dev libfmt-dev libfmt9 libsqlite3-dev
      libsqlite3-0 libpqxx-dev libpqxx-6.4 libpq-dev libpq5 libseccomp-dev libseccomp2 libgtest-dev
      libssl-dev libssl3 libeigen3-dev)
rm -rf .deps && mkdir -p .deps/debs
( cd .deps/debs && apt-get download "${pkgs[@]}" >/dev/null )
for d in .deps/debs/*.deb; do dpkg -x "$d" .deps; done
rm -rf .deps/debs .deps/usr/share/doc .deps/usr/share/man
find .deps -name "*.a" ! -name "libgtest*.a" -delete
# The -dev packages' .so symlinks point at absolute /usr paths when the runtime package is
# separate; make them relative so they resolve inside .deps.
find .deps -type l | while read -r l; do
  t=$(readlink "$l"); case "$t" in /*) ln -sf "$(basename "$t")" "$l";; esac
done
du -sh .deps
