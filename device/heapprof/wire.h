// What libfathom_heapprof.so and fathom-heapprofd exchange.
//
// Control: a Unix stream socket. The client connects, sends a Hello (with the memfd of
// its ring as SCM_RIGHTS), and waits for a Config reply before it starts sampling. The
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
#include <cstdint>

namespace fathom::heapprof {

inline constexpr uint32_t kWireVersion = 2;  // 2: records committed by their type
inline constexpr uint32_t kMaxFrames = 64;

struct Hello {
  uint32_t version;
  uint32_t pid;
  uint64_t ring_bytes;    // size of the data area after RingHeader: a power of two
  uint32_t from_startup;  // connected from the library constructor
  uint32_t reserved;
};

struct Config {
  uint64_t interval_bytes;  // mean sampling interval; 0 = do not profile this process
  uint32_t block_client;    // wait for room in the ring instead of dropping records
  uint32_t reserved;
};

struct alignas(64) RingHeader {
  std::atomic<uint32_t> lock;  // producers' spinlock
  uint32_t pad0;
  std::atomic<uint64_t> write_pos;             // bytes ever reserved (producers)
  std::atomic<uint64_t> overruns;              // records dropped because the ring was full
  std::atomic<uint64_t> spin_blocked_ns;       // time producers waited for the lock or room
  std::atomic<uint32_t> collector_done;        // set by the collector when its session ends
  alignas(64) std::atomic<uint64_t> read_pos;  // bytes ever consumed (collector)
};

enum RecordType : uint32_t { kUnwritten = 0, kAlloc = 1, kFree = 2 };

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

}  // namespace fathom::heapprof
