// How messages reach a device: USB bulk endpoints, a TCP socket to adbd, or (in tests) an
// in-process pipe. The Connection state machine only sees this interface.
#pragma once

#include <string>

#include "adb/cancel.h"
#include "adb/message.h"
#include "base/status.h"

namespace fathom::adb {

class Transport {
 public:
  virtual ~Transport() = default;
  // Sends one message; `version` decides whether the checksum is filled in. Must be safe to
  // call from several threads at once (implementations serialise whole messages).
  virtual Status Send(const Message& message, uint32_t version, Deadline deadline,
                      const CancelToken& cancel) = 0;
  // The same for a payload the caller keeps (a WRTE cut from a bigger buffer). The default
  // copies it into a Message; TcpTransport sends it from where it is.
  virtual Status SendPayload(uint32_t command, uint32_t arg0, uint32_t arg1,
                             std::string_view payload, uint32_t version, Deadline deadline,
                             const CancelToken& cancel) {
    return Send(Message::Make(command, arg0, arg1, std::string(payload)), version, deadline,
                cancel);
  }
  // Receives one whole message whose payload is at most max_payload bytes. Only one thread
  // receives at a time. A timeout in the middle of a message leaves the transport unusable.
  virtual Result<Message> Receive(uint32_t max_payload, Deadline deadline,
                                  const CancelToken& cancel) = 0;
  // Unblocks Send/Receive in other threads; afterwards every call fails.
  virtual void Close() = 0;
  // "usb:1-2", "127.0.0.1:5555", ... for messages and device lists.
  virtual std::string Describe() const = 0;
};

}  // namespace fathom::adb
