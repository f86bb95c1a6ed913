#!/bin/sh
# Prepares Docker for the docker profile on a machine without registry access:
#   1. installs docker.io if dockerd is missing (root),
#   2. starts dockerd if no engine answers (root; --bridge=none --iptables=false, so containers
#      only get host networking and nothing but loopback is ever addressed),
#   3. builds LOCAL images from the Debian binaries by `docker import` of a minimal root filesystem:
#        distlock/redis:7.0-local   (/usr/bin/redis-server + its libraries)
#        distlock/etcd:3.4-local    (/usr/bin/etcd + its libraries)
# Idempotent: existing images are kept unless REBUILD=1. Then run:
#   ./mvnw -pl lock-testing -am verify -Pdocker
set -eu

REDIS_IMAGE=${REDIS_IMAGE:-distlock/redis:7.0-local}
ETCD_IMAGE=${ETCD_IMAGE:-distlock/etcd:3.4-local}
DOCKERD_LOG=${DOCKERD_LOG:-${TMPDIR:-/tmp}/distlock-dockerd.log}

say() { echo "docker-images: $*"; }
die() { echo "docker-images: $*" >&2; exit 1; }

if ! command -v dockerd >/dev/null 2>&1 || ! command -v docker >/dev/null 2>&1; then
    [ "$(id -u)" -eq 0 ] || die "docker.io is missing; as root run: apt-get update && apt-get install -y docker.io"
    say "installing docker.io"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends docker.io
fi

if ! docker info >/dev/null 2>&1; then
    [ "$(id -u)" -eq 0 ] || die "no Docker engine answers and starting dockerd needs root"
    say "starting dockerd (log: $DOCKERD_LOG)"
    # setsid: dockerd must outlive this script; it is a machine service, stop it with
    #   kill "$(cat /var/run/docker.pid)"
    setsid dockerd --bridge=none --iptables=false --ip6tables=false >"$DOCKERD_LOG" 2>&1 </dev/null &
    n=0
    until docker info >/dev/null 2>&1; do
        n=$((n + 1))
        if [ $n -gt 120 ]; then
            tail -30 "$DOCKERD_LOG" >&2
            die "dockerd did not answer within 60 s (log above)"
        fi
        sleep 0.5
    done
fi
say "engine: $(docker version --format '{{.Server.Version}} (API {{.Server.APIVersion}})')"

# copies a binary and the shared libraries ldd lists into root filesystem $2
copy_with_libs() {
    bin=$1; root=$2
    mkdir -p "$root$(dirname "$bin")"
    cp -L "$bin" "$root$bin"
    for lib in $(ldd "$bin" | awk '/=>/ { print $3 } /^\s*\/lib/ { print $1 }'); do
        [ -f "$lib" ] || continue
        mkdir -p "$root$(dirname "$lib")"
        cp -L "$lib" "$root$lib"
    done
}

# builds image $1 from binary $2, with extra directories $3...
build_image() {
    image=$1; bin=$2; shift 2
    if [ "${REBUILD:-0}" != 1 ] && docker image inspect "$image" >/dev/null 2>&1; then
        say "$image exists (REBUILD=1 to rebuild)"
        return
    fi
    root=$(mktemp -d "${TMPDIR:-/tmp}/distlock-rootfs-XXXXXX")
    trap 'rm -rf "$root"' EXIT
    copy_with_libs "$bin" "$root"
    # the dynamic loader is listed by ldd without "=>"
    mkdir -p "$root/etc" "$root/tmp" "$root/data"
    chmod 1777 "$root/tmp"
    printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$root/etc/passwd"
    printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
    printf 'hosts: files\n' >"$root/etc/nsswitch.conf"
    printf '127.0.0.1 localhost\n::1 localhost\n' >"$root/etc/hosts"
    for d in "$@"; do mkdir -p "$root$d"; done
    say "importing $image from $bin ($(du -sh "$root" | cut -f1))"
    tar -C "$root" -c . | docker import \
        --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
        --change 'WORKDIR /data' \
        - "$image" >/dev/null
    rm -rf "$root"
    trap - EXIT
}

[ -x /usr/bin/redis-server ] || die "/usr/bin/redis-server missing: run scripts/install-servers.sh"
[ -x /usr/bin/etcd ] || die "/usr/bin/etcd missing: run scripts/install-servers.sh"
build_image "$REDIS_IMAGE" /usr/bin/redis-server
build_image "$ETCD_IMAGE" /usr/bin/etcd /var/lib/etcd

# smoke test: each image runs its binary
docker run --rm --network none "$REDIS_IMAGE" redis-server --version >/dev/null || die "$REDIS_IMAGE does not run"
docker run --rm --network none "$ETCD_IMAGE" etcd --version >/dev/null || die "$ETCD_IMAGE does not run"
say "ready: $REDIS_IMAGE $ETCD_IMAGE"
