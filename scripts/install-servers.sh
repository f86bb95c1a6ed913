#!/bin/sh
# Installs the Debian packages whose servers the distlock tests start (lock-testing io.distlock.testing.servers):
#   redis-server redis-sentinel etcd-server zookeeper mariadb-server postgresql pgbouncer
# Idempotent: returns at once when everything is present. Without root and with packages missing,
# prints what to install and exits 1.
set -eu

PACKAGES="redis-server redis-sentinel etcd-server zookeeper mariadb-server postgresql pgbouncer"

# a package counts as present when dpkg says so, or when its binary is already on this machine
present() {
    case "$1" in
        redis-server)   probe=/usr/bin/redis-server ;;
        redis-sentinel) probe=/usr/bin/redis-sentinel ;;
        etcd-server)    probe=/usr/bin/etcd ;;
        zookeeper)      probe=/usr/share/java/zookeeper.jar ;;
        mariadb-server) probe=/usr/sbin/mariadbd ;;
        postgresql)     probe=$(ls -d /usr/lib/postgresql/*/bin/postgres 2>/dev/null | head -1) ;;
        pgbouncer)      probe=/usr/sbin/pgbouncer ;;
        *)              probe= ;;
    esac
    if dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; then
        return 0
    fi
    [ -n "$probe" ] && [ -e "$probe" ]
}

missing=""
for p in $PACKAGES; do
    present "$p" || missing="$missing $p"
done

if [ -z "$missing" ]; then
    echo "install-servers: all present ($PACKAGES)"
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "install-servers: missing Debian packages:$missing" >&2
    echo "install-servers: run as root:  apt-get update && apt-get install -y$missing" >&2
    echo "install-servers: (or run this script as root: sudo scripts/install-servers.sh)" >&2
    exit 1
fi

echo "install-servers: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# policy-rc.d keeps the packages' services from starting system-wide: the tests start their own servers
if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
for p in $missing; do
    present "$p" || { echo "install-servers: $p still missing after apt-get install" >&2; exit 1; }
done
echo "install-servers: done"
