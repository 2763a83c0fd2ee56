// Offline symbolization throughput: N unsymbolized frames spread over the
// functions of a real binary (by default this benchmark itself), resolved by
// core/symbols through one llvm-symbolizer child, then the ModuleSymbols
// imported back. Prints frames/s for both steps and peak RSS. Not a pass/fail
// test: ctest runs a small smoke size. Linux-only (nm, getrusage).
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/symbols/elf_build_id.h"
#include "core/symbols/symbolize.h"
#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"

namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

long PeakRssMb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024;
}

// From the symbol table, else (stripped shared libraries) the dynamic one.
std::vector<uint64_t> FunctionAddresses(const std::string& binary, bool dynamic = false) {
  std::vector<uint64_t> out;
  std::string cmd = std::string("nm ") + (dynamic ? "-D " : "") + "--defined-only '" + binary + "'";
  FILE* p = popen((cmd + " 2>/dev/null").c_str(), "r");
  if (!p) return out;
  char line[4096];
  while (fgets(line, sizeof line, p)) {
    uint64_t addr;
    char type;
    if (sscanf(line, "%" SCNx64 " %c", &addr, &type) == 2 && (type == 'T' || type == 't') && addr)
      out.push_back(addr);
  }
  pclose(p);
  if (out.empty() && !dynamic) return FunctionAddresses(binary, true);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string binary;
  size_t frames = 20000;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--binary") && i + 1 < argc)
      binary = argv[++i];
    else if (!strcmp(argv[i], "--frames") && i + 1 < argc)
      frames = strtoull(argv[++i], nullptr, 10);
    else {
      fprintf(stderr, "usage: fathom-bench-symbolize [--binary ELF] [--frames N]\n");
      return 2;
    }
  }
  if (binary.empty()) {
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return 1;
    binary.assign(self, static_cast<size_t>(n));
  }
  auto build_id = fathom::symbols::ReadElfBuildId(binary);
  if (!build_id.ok()) {
    fprintf(stderr, "%s\n", build_id.status().message().c_str());
    return 1;
  }
  std::vector<uint64_t> fns = FunctionAddresses(binary);
  if (fns.empty()) {
    fprintf(stderr, "no functions in %s (is nm installed?)\n", binary.c_str());
    return 1;
  }
  // One callstack per frame so every frame is referenced; addresses a few
  // bytes into each function, cycling through the functions.
  perfetto::protos::Trace trace;
  auto* packet = trace.add_packet();
  packet->set_timestamp(1);
  packet->set_trusted_packet_sequence_id(1);
  auto* pp = packet->mutable_profile_packet();
  auto* s = pp->add_strings();
  s->set_iid(1);
  s->set_str(*build_id);
  s = pp->add_strings();
  s->set_iid(2);
  s->set_str(binary.substr(1));  // one path component: the whole path
  auto* m = pp->add_mappings();
  m->set_iid(1);
  m->set_build_id(1);
  m->add_path_string_ids(2);
  m->set_start(0x10000000);
  m->set_end(0x90000000);
  auto* dump = pp->add_process_dumps();
  dump->set_pid(1);
  dump->set_timestamp(1);
  for (size_t i = 0; i < frames; ++i) {
    auto* f = pp->add_frames();
    f->set_iid(i + 1);
    f->set_mapping_id(1);
    f->set_rel_pc(fns[i % fns.size()] + (i / fns.size()) * 2 + 1);
    auto* cs = pp->add_callstacks();
    cs->set_iid(i + 1);
    cs->add_frame_ids(i + 1);
    auto* sample = dump->add_samples();
    sample->set_callstack_id(i + 1);
    sample->set_self_allocated(64);
    sample->set_alloc_count(1);
  }
  std::string bytes = trace.SerializeAsString();

  fathom::TraceProcessor tp;
  if (auto st = tp.LoadBuffer(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      !st.ok()) {
    fprintf(stderr, "%s\n", st.message().c_str());
    return 1;
  }
  fathom::symbols::SymbolizeOptions opt;
  auto t0 = std::chrono::steady_clock::now();
  auto r = fathom::symbols::SymbolizeTrace(tp.storage(), opt);
  double symbolize_s = Seconds(t0);
  if (!r.ok()) {
    fprintf(stderr, "%s\n", r.status().message().c_str());
    return 1;
  }
  std::string combined = bytes + r->packets;
  fathom::TraceProcessor tp2;
  t0 = std::chrono::steady_clock::now();
  if (auto st = tp2.LoadBuffer(reinterpret_cast<const uint8_t*>(combined.data()), combined.size());
      !st.ok()) {
    fprintf(stderr, "%s\n", st.message().c_str());
    return 1;
  }
  double load_s = Seconds(t0);
  size_t named = 0;
  const auto& f = tp2.storage().profile.stack_profile_frame;
  for (uint32_t i = 0; i < f.row_count(); ++i) named += f.symbol_set_id.Get(i).has_value();
  printf("binary %s: %zu functions, %zu frames\n", binary.c_str(), fns.size(), frames);
  printf("symbolize: %zu resolved in %.2f s (%.0f frames/s), %zu bytes of ModuleSymbols\n",
         r->resolved, symbolize_s, r->resolved / symbolize_s, r->packets.size());
  printf("load trace + symbols: %.2f s (%.0f frames/s), %zu frames named\n", load_s,
         frames / load_s, named);
  printf("peak RSS %ld MB\n", PeakRssMb());
  return named == r->resolved ? 0 : 1;
}
