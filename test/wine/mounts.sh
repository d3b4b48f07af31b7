# shellcheck shell=bash
# Sourced by test/wine/chroot.sh and test/wine/lane.sh: the chroot's system
# folders mounted and unmounted, and folders removed never through a mount.

mounted=()

# proc, sys, dev and dev/pts of this machine inside the chroot <root>; with "shm", a tmpfs on dev/shm too.
mount_system() {
  local m
  for m in proc sys dev dev/pts; do
    mount --bind "/$m" "$1/$m"
    mounted+=("$1/$m")
  done
  if [ "${2-}" = shm ]; then
    mount -t tmpfs tmpfs "$1/dev/shm"
    mounted+=("$1/dev/shm")
  fi
}

# Everything mount_system mounted, last first (also from an EXIT trap).
unmount_all() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
  mounted=()
}

# Whether anything is mounted below <dir>.
mounted_below() {
  grep -qF " $1/" /proc/mounts
}

# Remove <dir>, never through a mount: with anything mounted below it, it is left and this fails; rm stays on its file system.
remove_unmounted() {
  if mounted_below "$1"; then
    printf '%s\n' "left $1: something is still mounted in it" >&2
    return 1
  fi
  rm -rf --one-file-system "$1"
}
