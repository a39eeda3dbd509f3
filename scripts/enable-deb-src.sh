#!/bin/sh
# Enables Debian source packages (deb-src) so that `apt-get source` works, then
# runs apt-get update if it changed anything or no source index is there yet.
# Idempotent: running it twice changes nothing more.
#  - deb822 file /etc/apt/sources.list.d/debian.sources: "Types: deb" becomes
#    "Types: deb deb-src";
#  - one-line file /etc/apt/sources.list: every "deb URI ..." line without a
#    matching "deb-src URI ..." line gets one after it.
# Prints one word on stdout, "changed" or "unchanged"; messages and apt-get's
# output go to stderr. Needs root. Options: --no-update (or NO_UPDATE=1) skips
# apt-get update. Environment: APT_ETC (default /etc/apt), to try it on a copy.
set -eu
[ "${1:-}" = --no-update ] && NO_UPDATE=1
etc=${APT_ETC:-/etc/apt}
changed=0

deb822=$etc/sources.list.d/debian.sources
if [ -f "$deb822" ] && grep -q '^Types:[[:space:]]*deb[[:space:]]*$' "$deb822"; then
  sed -i 's/^Types:[[:space:]]*deb[[:space:]]*$/Types: deb deb-src/' "$deb822"
  echo "enable-deb-src: $deb822: Types: deb deb-src" >&2
  changed=1
fi

list=$etc/sources.list
if [ -f "$list" ]; then
  tmp=$(mktemp)
  awk '
    # key(): the line without its type word and [options], blanks squeezed.
    function key(l) {
      sub(/^[[:space:]]*deb(-src)?[[:space:]]+/, "", l)
      sub(/^\[[^]]*\][[:space:]]*/, "", l)
      gsub(/[[:space:]]+/, " ", l)
      return l
    }
    { lines[NR] = $0 }
    /^[[:space:]]*deb-src[[:space:]]/ { have[key($0)] = 1 }
    END {
      for (i = 1; i <= NR; i++) {
        print lines[i]
        l = lines[i]
        if (l ~ /^[[:space:]]*deb[[:space:]]/ && !(key(l) in have)) {
          sub(/^[[:space:]]*deb/, "deb-src", l)
          print l
          have[key(l)] = 1
        }
      }
    }' "$list" >"$tmp"
  if ! cmp -s "$tmp" "$list"; then
    cat "$tmp" >"$list"
    echo "enable-deb-src: $list: added deb-src lines" >&2
    changed=1
  fi
  rm -f "$tmp"
fi

[ "$changed" = 0 ] && echo "enable-deb-src: deb-src already enabled" >&2
if [ "${NO_UPDATE:-0}" != 1 ]; then
  if [ "$changed" = 1 ] || ! ls /var/lib/apt/lists/*_Sources* >/dev/null 2>&1; then
    apt-get update >&2
  fi
fi
if [ "$changed" = 1 ]; then echo changed; else echo unchanged; fi
