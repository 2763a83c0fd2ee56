// Where adb keys live and how they are shared with Google's adb (spec §5): the user key in
// <android home>/adbkey (+ adbkey.pub), extra keys from ADB_VENDOR_KEYS.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "adb/auth_key.h"
#include "base/status.h"

namespace fathom::adb {

// $ANDROID_USER_HOME if set, else $HOME/.android (%USERPROFILE%\.android on Windows).
Result<std::filesystem::path> AndroidUserHome();

// Reads <dir>/adbkey; if there is none, generates a key and writes adbkey (PKCS#8 PEM) and
// adbkey.pub (Android text form + " user@host", no newline), both mode 0600, creating dir
// (0750) if needed. An existing unreadable key is an error, never silently replaced: it may
// be the key the user's devices already trust.
Result<AuthKey> LoadOrCreateUserKey(const std::filesystem::path& dir);

// Keys named by ADB_VENDOR_KEYS: files, or directories whose "*.adb_key" files are keys.
// Entries are separated by ':' (';' on Windows). Unreadable entries are skipped.
std::vector<AuthKey> LoadVendorKeys();

// The keys to try in order: the user's key first, then vendor keys.
Result<std::vector<AuthKey>> LoadAllKeys();

// Writes a file readable only by its owner (0600 on POSIX).
Status WritePrivateFile(const std::filesystem::path& path, const std::string& content);

}  // namespace fathom::adb
