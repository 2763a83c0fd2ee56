// What libfathom_heapprof.so and fathom-heapprofd exchange.
//
// Control: a Unix stream socket. The client connects and sends a Hello; the collector
// answers with a Config. A client that is to be profiled then creates its ring, sized
// from the interval in the Config (RingBytesFor), sends a RingOffer with the ring's
// memfd as SCM_RIGHTS, and starts sampling once the collector answers a RingAccepted. The
// socket stays open; its EOF tells the collector the process is gone.
//
// Data: one shared-memory ring per process, its size a power of two. Producers (the
// process's threads) reserve a record's bytes under a spinlock (write_pos += size), so
// the ring has one total order and a free of a sampled address is always before a later
// allocation that reuses it (the client reserves and writes the free record before it
// calls the real free). The record itself is written after the lock is released; its
// RecordHeader::type is stored last, with release ordering, and 0 means "reserved, not
// written yet": the single consumer (the collector) stops there and retries later. It
// reads without the lock, zeroes the bytes it consumed (so a reserved record reads 0
// until written) and then publishes read_pos with release ordering.
#pragma once

#include <atomic>
#include <csignal>
#include <cstdint>

namespace fathom::heapprof {

// 2: records committed by their type; 3: the ring is offered after the Config; 4: code
// unloaded records, and a byte on the socket asks for a drain
inline constexpr uint32_t kWireVersion = 4;
inline constexpr uint32_t kMaxFrames = 64;

struct Hello {
  uint32_t version;
  uint32_t pid;
  uint32_t from_startup;  // connected from the library constructor
  uint32_t reserved;
};

struct Config {
  uint64_t interval_bytes;  // mean sampling interval; 0 = do not profile this process
  uint32_t block_client;    // wait for room in the ring instead of dropping records
  uint32_t reserved;
};

struct RingOffer {
  uint64_t ring_bytes;  // size of the data area after RingHeader: a power of two
};

struct RingAccepted {
  uint32_t mapped;  // 1: the collector drains the ring
  uint32_t reserved;
};

// The ring a client creates for a mean interval: 8 MiB at <= 4 KiB (an allocation-bound
// program writes ~300 MB/s of records there, drained every 1 ms), halved each time the
// interval doubles, at least 1 MiB (large blocks are always recorded). Every page of the
// ring a process touches is memory it did not have before: at 512 KiB an 8 MiB ring cost
// the bench workload ~2 % of its time in page faults alone.
inline uint64_t RingBytesFor(uint64_t interval) {
  uint64_t bytes = uint64_t{8} << 20;
  for (uint64_t i = 4096; i < interval && bytes > (uint64_t{1} << 20); i *= 2) bytes /= 2;
  return bytes;
}

struct alignas(64) RingHeader {
  std::atomic<uint32_t> lock;  // producers' spinlock
  uint32_t pad0;
  std::atomic<uint64_t> write_pos;             // bytes ever reserved (producers)
  std::atomic<uint64_t> overruns;              // records dropped because the ring was full
  std::atomic<uint64_t> spin_blocked_ns;       // time producers waited for the lock or room
  std::atomic<uint32_t> collector_done;        // set by the collector when its session ends
  alignas(64) std::atomic<uint64_t> read_pos;  // bytes ever consumed (collector)
};

enum RecordType : uint32_t { kUnwritten = 0, kAlloc = 1, kFree = 2, kCodeUnloaded = 3 };

// Records are 8-byte aligned; `bytes` is the whole record length.
struct RecordHeader {
  uint32_t type;
  uint32_t bytes;
};

struct AllocRecord {
  RecordHeader h;
  uint64_t addr;
  uint64_t sampled_bytes;  // what this sample stands for (true size if >= interval)
  uint64_t real_bytes;     // requested size
  uint32_t tid;
  uint32_t num_frames;  // followed by num_frames uint64_t pcs, innermost first
  // uint64_t pcs[num_frames];
};

struct FreeRecord {
  RecordHeader h;
  uint64_t addr;
};

// dlclose unmapped code: return addresses seen from here on may belong to other code
// mapped at the same addresses since, so the collector reads the maps again and resolves
// pcs anew. Before the real dlclose the client sends a byte on the socket and waits (at
// most kDrainWaitMs) until the collector has drained what was written so far, so the
// frames of the code about to go are resolved while it is still mapped.
struct CodeUnloadedRecord {
  RecordHeader h;
  uint64_t unloads;  // the loader's count of unloaded objects (dl_phdr_info::dlpi_subs)
};
inline constexpr uint32_t kDrainWaitMs = 100;

// Attach (fathom-heapprofd --pid): the signal that asks a process started with the preload
// to connect. Its default action must be to ignore it: the collector signals only while
// /proc/PID/status shows it caught, but an exec between that check and the kill (a pyenv
// shim or a wrapper script exec'ing the real program) resets the handler, and the
// SIGRTMIN+4 used before then killed the new image (2-3 attaches in 10 to a pyenv
// python3). A dropped request is simply sent again.
inline constexpr int kAttachSignal = SIGURG;

}  // namespace fathom::heapprof
