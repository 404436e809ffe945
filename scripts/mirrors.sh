# Sourced by every script that builds: points SwiftPM at the offline mirrors of Loom's
# dependencies (see ../shared/mirrors/README.md) for each package it will build.
#
#   . "$ROOT/scripts/mirrors.sh"; use_mirrors "$ROOT" "$ROOT/Examples"
#
# Package.swift names the real URL. SwiftPM keeps a mirror in the package's own
# .swiftpm/configuration/mirrors.json (git-ignored), so each root package — Loom, Examples, Fuzz,
# a consumer package — needs it set; packages it depends on follow the root's mirrors. Where the
# mirror directory does not exist (a machine that reaches github.com), nothing is set and SwiftPM
# resolves the real URL. LOOM_MIRRORS overrides the mirrors directory.

LOOM_MIRRORS=${LOOM_MIRRORS:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/../shared/mirrors}

use_mirrors() {
    local package
    [ -d "$LOOM_MIRRORS/swift-syntax.git" ] || return 0
    local mirror
    mirror=$(cd "$LOOM_MIRRORS/swift-syntax.git" && pwd)
    for package in "$@"; do
        swift package --package-path "$package" config set-mirror \
            --original https://github.com/swiftlang/swift-syntax.git --mirror "$mirror"
    done
}
