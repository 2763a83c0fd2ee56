// Requests from outside to stop a long-running fathom-cli command, counted so
// the command can stop cleanly instead of dying mid-way: Ctrl-C (SIGINT),
// SIGTERM (kill, a service manager, a CI runner's timeout) and SIGHUP (the
// terminal closed) on POSIX; Ctrl-C, Ctrl-Break and closing the console on
// Windows. The handlers only count; the command polls StopRequests() and
// decides (`record`: the first request stops and pulls, the second abandons).
#pragma once

namespace fathom::cli {

// Starts counting stop requests instead of letting them end the process.
void CatchStopRequests();
// Gives the requests their default effect (ending the process) again.
void ReleaseStopRequests();
// Requests so far.
int StopRequests();
// How the first request arrived, for messages: "Ctrl-C", "SIGTERM", "SIGHUP",
// "Ctrl-Break", "console closed"; empty before any.
const char* FirstStopRequestName();

}  // namespace fathom::cli
