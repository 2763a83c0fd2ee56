# Sourced by the Wine tests that talk to the adb test double (wine_cli_test.sh,
# wine_record_test.sh) after they set STATE: the Wine prefix kept in STATE
# between runs, Wine quiet and without Mono/Gecko prompts, arguments decoded
# as UTF-8, and no adb setting of the developer's reaching the exe (its own
# server port, never a running server's).
mkdir -p "$STATE"
STATE=$(cd "$STATE" && pwd)  # Wine wants an absolute WINEPREFIX
export WINEPREFIX=$STATE/wineprefix WINEDEBUG=-all
export WINEDLLOVERRIDES="mscoree,mshtml="  # no Mono/Gecko install prompts
export LC_ALL=C.UTF-8                        # Wine decodes arguments with the locale
unset ANDROID_SERIAL ANDROID_USER_HOME ADB_SERVER_SOCKET ADB_VENDOR_KEYS
export ANDROID_ADB_SERVER_PORT=$((20000 + RANDOM % 20000))
