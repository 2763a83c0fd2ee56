// How long Fathom waits for a device, per kind of wait. A device that stops answering (or
// never does) must end in an error naming the wait and its limit, not a hang; the limits are
// generous because a real device can be slow (a user has to tap "Allow", a phone under load
// takes seconds to start a service).
//
// Process-wide defaults: the built-in values, overridden by FATHOM_ADB_TIMEOUT_CONNECT,
// _AUTH, _OPEN and _IDLE (seconds, fractions allowed, 0 = no limit), overridden in turn by
// fathom-cli's --timeout-connect/--timeout-auth/--timeout-open/--timeout-idle, which call
// SetDefaultTimeouts(). ConnectionOptions, AdbStream and ServerStream take their limits from
// here when they are created, so record/ and the GUI get them without passing anything.
#pragma once

#include <string>
#include <string_view>

#include "adb/cancel.h"
#include "base/status.h"

namespace fathom::adb {

struct AdbTimeouts {
  Millis connect{10000};  // TCP connect, and each CNXN/AUTH round trip of the handshake
  Millis auth{60000};     // after our public key: the user taps "Allow USB debugging"
  Millis open{10000};     // an OPEN answered with OKAY (or CLSE)
  Millis idle{60000};     // a stream without a byte from the device, or without its OKAY
};

AdbTimeouts DefaultTimeouts();
void SetDefaultTimeouts(const AdbTimeouts& timeouts);

// "10", "0.5", "0" (no limit) seconds; an error for anything else.
Result<Millis> ParseTimeoutSeconds(std::string_view text);

// `caller` or now + limit, whichever comes first (limit 0: no limit of ours).
Deadline WithLimit(Deadline caller, Millis limit);

// "10 s", "0.25 s".
std::string FormatLimit(Millis limit);

// "<what> within <limit> (<flag>)": the message of a wait that hit one of our limits.
Status TimeoutError(const std::string& what, Millis limit, const char* flag);

}  // namespace fathom::adb
