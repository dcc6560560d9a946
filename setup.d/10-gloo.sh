# Debian's Gloo (multi-host HCCL, csrc/hccl/gloo.cpp) and iproute2 (the tests' simulated hosts in
# network namespaces). Installed with apt when this shell may; otherwise say so.
packages=()
[ -e /usr/include/gloo/rendezvous/context.h ] || packages+=(libgloo-dev)
command -v ip > /dev/null 2>&1 || packages+=(iproute2)
[ ${#packages[@]} -eq 0 ] && exit 0
if command -v apt-get > /dev/null 2>&1; then
    sudo=()
    [ "$(id -u)" -eq 0 ] || { command -v sudo > /dev/null 2>&1 && sudo -n true 2> /dev/null && sudo=(sudo -n); }
    if [ "$(id -u)" -eq 0 ] || [ ${#sudo[@]} -gt 0 ]; then
        export DEBIAN_FRONTEND=noninteractive
        "${sudo[@]}" apt-get update -qq > /dev/null && "${sudo[@]}" apt-get install -y -qq "${packages[@]}" > /dev/null \
            && exit 0
    fi
fi
echo "setup: ${packages[*]} not installed (needs apt and root): multi-host HCCL is not built," \
     "its tests and the network-namespace tests are skipped" >&2
exit 1
