// linux.inode_file_map scan throughput: InodeFileSource walks a tree (made here, or
// --root PATH) in batches, as fathom-recorder's loop drives it. Prints inodes/s, the
// trace bytes per inode and the process's peak RSS growth during the walk.
//   fathom-bench-inode-scan [--dirs 200 --files 250] [--root PATH] [--batch 15000]
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "inode_file_source.h"
#include "trace_writer.h"
#include "util.h"

namespace {

double CpuSeconds() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

long PeakRssKb() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

}  // namespace

int main(int argc, char** argv) {
  int dirs = 200, files = 250;
  uint64_t batch = 15000;
  std::string root;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--dirs") dirs = atoi(argv[i + 1]);
    if (a == "--files") files = atoi(argv[i + 1]);
    if (a == "--root") root = argv[i + 1];
    if (a == "--batch") batch = strtoull(argv[i + 1], nullptr, 10);
  }
  namespace fs = std::filesystem;
  std::string tmpl = (fs::temp_directory_path() / "fathom_inode_bench_XXXXXX").string();
  if (!mkdtemp(tmpl.data())) return 1;
  const std::string work = tmpl;
  if (root.empty()) {
    root = work + "/tree";
    for (int d = 0; d < dirs; d++) {
      std::string dir = root + "/d" + std::to_string(d / 20) + "/d" + std::to_string(d);
      fs::create_directories(dir);
      for (int f = 0; f < files; f++) std::ofstream(dir + "/file_" + std::to_string(f));
    }
  }
  // The first walk warms the dentry and inode caches (a recording's walk of a busy
  // filesystem mostly hits them too); the second is measured.
  double best_rate = 0, cpu_rate = 0;
  uint64_t inodes = 0, bytes = 0;
  long rss_before = PeakRssKb(), rss_growth = 0;
  for (int round = 0; round < 2; round++) {
    fathom::recorder::InodeFileSourceConfig c;
    c.scan_mount_points = {root};
    c.scan_delay_ms = 1;
    c.scan_interval_ms = 1;
    c.scan_batch_size = batch;
    auto w = fathom::device::TraceWriter::Open(work + "/t.pftrace", {});
    if (!w.ok()) return 1;
    fathom::recorder::InodeFileSource s(c, w->get(), 1);
    double cpu0 = CpuSeconds();
    int64_t t0 = fathom::recorder::MonoNs();
    s.Start(t0 - 2000000);
    while (s.Step(fathom::recorder::MonoNs() + 2000000)) {
    }
    int64_t t1 = fathom::recorder::MonoNs();
    double cpu = CpuSeconds() - cpu0;
    if (!(*w)->Close().ok()) return 1;
    inodes = s.counts().inodes;
    bytes = fs::file_size(work + "/t.pftrace");
    best_rate = static_cast<double>(inodes) * 1e9 / static_cast<double>(t1 - t0);
    cpu_rate = cpu > 0 ? static_cast<double>(inodes) / cpu : 0;
    rss_growth = PeakRssKb() - rss_before;
  }
  printf(
      "inode scan: %llu inodes, %.0f inodes/s wall, %.0f inodes per CPU-second (warm "
      "caches), %.1f trace bytes/inode, peak RSS growth %ld KiB\n",
      static_cast<unsigned long long>(inodes), best_rate, cpu_rate,
      inodes ? static_cast<double>(bytes) / static_cast<double>(inodes) : 0.0, rss_growth);
  fs::remove_all(work);
  return inodes > 0 ? 0 : 1;
}
