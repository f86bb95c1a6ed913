#!/bin/sh
# Prepares Docker for the docker profile on a machine without registry access:
#   1. installs docker.io if dockerd is missing (root),
#   2. starts dockerd if no engine answers (root; --bridge=none --iptables=false, so containers
#      only get host networking and nothing but loopback is ever addressed),
#   3. builds LOCAL images from the Debian binaries by `docker import` of a minimal root filesystem:
#        distlock/redis:7.0-local   (/usr/bin/redis-server + its libraries)
#        distlock/etcd:3.4-local    (/usr/bin/etcd + its libraries)
#        distlock/postgresql:15-local (initdb and postgres of PostgreSQL 15, its lib and share
#                                      directories, /bin/sh, time zones, the C.UTF-8 locale and a
#                                      non-root user postgres with the host's uid of that user)
# Idempotent: existing images are kept unless REBUILD=1. Then run:
#   ./mvnw -pl lock-testing -am verify -Pdocker
set -eu

REDIS_IMAGE=${REDIS_IMAGE:-distlock/redis:7.0-local}
ETCD_IMAGE=${ETCD_IMAGE:-distlock/etcd:3.4-local}
POSTGRES_IMAGE=${POSTGRES_IMAGE:-distlock/postgresql:15-local}
PG=/usr/lib/postgresql/15
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

# whether image $1 is to be built (it is missing, or REBUILD=1)
needs_build() {
    if [ "${REBUILD:-0}" != 1 ] && docker image inspect "$1" >/dev/null 2>&1; then
        say "$1 exists (REBUILD=1 to rebuild)"
        return 1
    fi
}

# a new root filesystem with a minimal /etc, /tmp and /data, in $root
new_root() {
    root=$(mktemp -d "${TMPDIR:-/tmp}/distlock-rootfs-XXXXXX")
    trap 'rm -rf "$root"' EXIT
    mkdir -p "$root/etc" "$root/tmp" "$root/data"
    chmod 1777 "$root/tmp"
    printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$root/etc/passwd"
    printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
    printf 'hosts: files\n' >"$root/etc/nsswitch.conf"
    printf '127.0.0.1 localhost\n::1 localhost\n' >"$root/etc/hosts"
}

# imports $root as image $1 (from $2, for the message), extra `docker import --change`s after
import_root() {
    image=$1; from=$2; shift 2
    say "importing $image from $from ($(du -sh "$root" | cut -f1))"
    tar -C "$root" -c . | docker import \
        --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
        --change 'WORKDIR /data' \
        "$@" - "$image" >/dev/null
    rm -rf "$root"
    trap - EXIT
}

# builds image $1 from binary $2, with extra directories $3...
build_image() {
    image=$1; bin=$2; shift 2
    needs_build "$image" || return 0
    new_root
    # the dynamic loader is listed by ldd without "=>"
    copy_with_libs "$bin" "$root"
    for d in "$@"; do mkdir -p "$root$d"; done
    import_root "$image" "$bin"
}

# builds the PostgreSQL image: postgres refuses to run as root, so the image has a user postgres
# with the uid and gid the host's postgres user has (a directory the test JVM gives to that user
# is then writable in the container); initdb starts postgres through /bin/sh
build_postgres_image() {
    image=$1
    needs_build "$image" || return 0
    uid=$(id -u postgres 2>/dev/null || echo 999)
    gid=$(id -g postgres 2>/dev/null || echo 999)
    new_root
    for bin in "$PG/bin/postgres" "$PG/bin/initdb" "$PG/bin/pg_ctl" "$(readlink -f /bin/sh)"; do
        copy_with_libs "$bin" "$root"
    done
    mkdir -p "$root/bin"
    [ -e "$root/bin/sh" ] || ln -s "$(readlink -f /bin/sh)" "$root/bin/sh"
    # extension libraries (pg_stat_statements, ...) without the LLVM JIT: without it, JIT is off
    mkdir -p "$root$PG/lib"
    for lib in "$PG"/lib/*.so; do
        case "$lib" in */llvmjit*) continue ;; esac
        copy_with_libs "$lib" "$root"
    done
    mkdir -p "$root/usr/share" "$root/usr/lib/locale"
    cp -a /usr/share/postgresql "$root/usr/share/"
    cp -a /usr/share/zoneinfo "$root/usr/share/"
    cp -a /usr/lib/locale/C.utf8 "$root/usr/lib/locale/"
    echo "postgres:x:$uid:$gid:PostgreSQL:/data:/bin/sh" >>"$root/etc/passwd"
    echo "postgres:x:$gid:" >>"$root/etc/group"
    chown "$uid:$gid" "$root/data"
    import_root "$image" "$PG" \
        --change "ENV PATH=$PG/bin:/usr/local/bin:/usr/bin:/bin" \
        --change 'ENV TZ=UTC' \
        --change 'USER postgres'
}

[ -x /usr/bin/redis-server ] || die "/usr/bin/redis-server missing: run scripts/install-servers.sh"
[ -x /usr/bin/etcd ] || die "/usr/bin/etcd missing: run scripts/install-servers.sh"
build_image "$REDIS_IMAGE" /usr/bin/redis-server
build_image "$ETCD_IMAGE" /usr/bin/etcd /var/lib/etcd
[ -x "$PG/bin/postgres" ] || die "$PG/bin/postgres missing: run scripts/install-servers.sh"
build_postgres_image "$POSTGRES_IMAGE"

# smoke test: each image runs its binary
docker run --rm --network none "$REDIS_IMAGE" redis-server --version >/dev/null || die "$REDIS_IMAGE does not run"
docker run --rm --network none "$ETCD_IMAGE" etcd --version >/dev/null || die "$ETCD_IMAGE does not run"
docker run --rm --network none "$POSTGRES_IMAGE" postgres --version >/dev/null || die "$POSTGRES_IMAGE does not run"
say "ready: $REDIS_IMAGE $ETCD_IMAGE $POSTGRES_IMAGE"
