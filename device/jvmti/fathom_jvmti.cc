// libfathom_jvmti.so: a JVMTI agent sampling Java allocations with their
// stacks into a tiallocsample log (see README.md). Two modes, chosen by what
// the VM can do: SampledObjectAlloc at a mean byte interval (JDK 11+; the only
// useful mode on HotSpot, whose VMObjectAlloc reports just the objects the VM
// itself allocates) or every Nth VMObjectAlloc event (ART reports every
// managed allocation there, as tiallocsample expects).
#include <jni.h>
#include <jvmti.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "device/jvmti/agent_options.h"
#include "device/jvmti/alloc_log_writer.h"

namespace fathom::jvmti {
namespace {

struct Agent {
  AgentOptions options;
  bool bytes_mode = false;
  AllocLogWriter writer;
  std::atomic<uint64_t> allocations{0};  // VMObjectAlloc events seen (count mode)
  std::atomic<bool> dead{false};
};
Agent* g_agent = nullptr;  // lives until process exit: callbacks may still run

int64_t BootNs() {
  timespec ts{};
#ifdef CLOCK_BOOTTIME
  clock_gettime(CLOCK_BOOTTIME, &ts);
#else
  clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// "Ljava/lang/String;" -> "java.lang.String" (frames read like Java source).
std::string ClassDisplay(const char* sig) {
  std::string s = sig ? sig : "?";
  if (s.size() >= 2 && s.front() == 'L' && s.back() == ';') s = s.substr(1, s.size() - 2);
  for (char& c : s)
    if (c == '/') c = '.';
  return s;
}

class JvmtiString {
 public:
  explicit JvmtiString(jvmtiEnv* env) : env_(env) {}
  ~JvmtiString() {
    if (p_) env_->Deallocate(reinterpret_cast<unsigned char*>(p_));
  }
  char** out() { return &p_; }
  const char* get() const { return p_ ? p_ : ""; }

 private:
  jvmtiEnv* env_;
  char* p_ = nullptr;
};

std::string MethodText(jvmtiEnv* env, JNIEnv* jni, jmethodID m) {
  JvmtiString name(env), sig(env), class_sig(env);
  env->GetMethodName(m, name.out(), sig.out(), nullptr);
  jclass declaring = nullptr;
  if (env->GetMethodDeclaringClass(m, &declaring) == JVMTI_ERROR_NONE && declaring) {
    env->GetClassSignature(declaring, class_sig.out(), nullptr);
    jni->DeleteLocalRef(declaring);
  }
  return ClassDisplay(class_sig.get()) + "." + name.get() + sig.get();
}

// The class's "SIG file: FILE" text index, cached in the class's JVMTI tag
// (index + 1) so a known class costs one GetTag.
uint32_t ClassIndexLocked(jvmtiEnv* env, jclass klass) {
  jlong tag = 0;
  if (env->GetTag(klass, &tag) == JVMTI_ERROR_NONE && tag > 0)
    return static_cast<uint32_t>(tag - 1);
  JvmtiString sig(env), file(env);
  env->GetClassSignature(klass, sig.out(), nullptr);
  std::string text = std::string(sig.get()) + " file: ";
  if (env->GetSourceFileName(klass, file.out()) == JVMTI_ERROR_NONE)
    text += file.get();
  else
    text += "<UNKNOWN_FILE>";
  uint32_t index = g_agent->writer.ClassIndex(text);
  env->SetTag(klass, static_cast<jlong>(index) + 1);
  return index;
}

// Thread names change rarely; re-read every 256 samples of a thread.
struct ThreadName {
  std::string name;
  uint32_t uses = 0;
};
thread_local ThreadName t_name;

const std::string& CurrentThreadName(jvmtiEnv* env, JNIEnv* jni, jthread thread) {
  if (t_name.uses++ % 256 == 0) {
    jvmtiThreadInfo info{};
    if (env->GetThreadInfo(thread, &info) == JVMTI_ERROR_NONE) {
      t_name.name = info.name ? info.name : "";
      if (info.name) env->Deallocate(reinterpret_cast<unsigned char*>(info.name));
      if (info.thread_group) jni->DeleteLocalRef(info.thread_group);
      if (info.context_class_loader) jni->DeleteLocalRef(info.context_class_loader);
    } else {
      t_name.uses = 0;  // not a live thread yet (VM start-up): ask again next time
    }
  }
  return t_name.name;
}

void Record(jvmtiEnv* env, JNIEnv* jni, jthread thread, jclass klass, jlong size) {
  if (g_agent->dead.load(std::memory_order_relaxed)) return;
  const int depth = g_agent->options.stack_depth_limit;
  // Every local reference made below dies with this frame.
  if (jni->PushLocalFrame(16) != JNI_OK) return;
  thread_local std::vector<jvmtiFrameInfo> frames;
  thread_local std::vector<int64_t> stack;
  frames.resize(static_cast<size_t>(depth));
  jint n = 0;
  if (env->GetStackTrace(nullptr, 0, depth, frames.data(), &n) != JVMTI_ERROR_NONE) n = 0;
  const std::string& tname = CurrentThreadName(env, jni, thread);
  {
    std::lock_guard<std::mutex> lock(g_agent->writer.mutex());
    if (g_agent->writer.is_open()) {
      uint32_t cls = ClassIndexLocked(env, klass);
      stack.clear();
      stack.push_back(g_agent->writer.TypeKey(tname, cls, size));
      // JVMTI gives the current frame first; the format wants the outermost first.
      for (jint i = n - 1; i >= 0; --i) {
        auto id = reinterpret_cast<uintptr_t>(frames[static_cast<size_t>(i)].method);
        int64_t key = g_agent->writer.CachedFrame(id);
        if (key < 0)
          key = g_agent->writer.AddFrame(
              id, MethodText(env, jni, frames[static_cast<size_t>(i)].method));
        stack.push_back(key);
      }
      g_agent->writer.Sample(stack);
    }
  }
  jni->PopLocalFrame(nullptr);
}

void JNICALL OnSampledObjectAlloc(jvmtiEnv* env, JNIEnv* jni, jthread thread, jobject, jclass klass,
                                  jlong size) {
  Record(env, jni, thread, klass, size);
}

void JNICALL OnVMObjectAlloc(jvmtiEnv* env, JNIEnv* jni, jthread thread, jobject, jclass klass,
                             jlong size) {
  uint64_t n = g_agent->allocations.fetch_add(1, std::memory_order_relaxed) + 1;
  if (n % static_cast<uint64_t>(g_agent->options.sample_rate) == 0)
    Record(env, jni, thread, klass, size);
}

void JNICALL OnVMDeath(jvmtiEnv*, JNIEnv*) {
  g_agent->dead.store(true);
  std::lock_guard<std::mutex> lock(g_agent->writer.mutex());
  std::string footer = "# end ts=" + std::to_string(BootNs()) +
                       " samples=" + std::to_string(g_agent->writer.samples());
  if (!g_agent->bytes_mode)
    footer += " allocations_seen=" + std::to_string(g_agent->allocations.load());
  g_agent->writer.Close(footer);
}

std::string ProcessName(jvmtiEnv* env) {
  // The launcher's main class (HotSpot), else argv[0] (an Android app's
  // process is named after its package).
  char* cmd = nullptr;
  std::string name;
  if (env->GetSystemProperty("sun.java.command", &cmd) == JVMTI_ERROR_NONE && cmd) {
    name = cmd;
    env->Deallocate(reinterpret_cast<unsigned char*>(cmd));
    name = name.substr(0, name.find(' '));
  }
  if (name.empty()) {
    std::ifstream in("/proc/self/cmdline");
    std::getline(in, name, '\0');
  }
  for (char& c : name)
    if (c == '\n') c = ' ';
  return name;
}

jint Start(JavaVM* vm, char* args) {
  auto fail = [](const std::string& why) {
    fprintf(stderr, "fathom_jvmti: %s\n", why.c_str());
    return JNI_ERR;
  };
  if (g_agent) return fail("already loaded");
  AgentOptions opt;
  if (std::string err = ParseAgentOptions(args, &opt); !err.empty()) return fail(err);
  jvmtiEnv* env = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&env), JVMTI_VERSION_1_2) != JNI_OK || !env)
    return fail("the VM offers no JVMTI environment (on ART pass -Xplugin:libopenjdkjvmti.so)");

  jvmtiCapabilities potential{};
  env->GetPotentialCapabilities(&potential);
  bool can_bytes = potential.can_generate_sampled_object_alloc_events;
  bool can_count = potential.can_generate_vm_object_alloc_events;
  bool bytes = opt.mode == SampleMode::kBytes || (opt.mode == SampleMode::kAuto && can_bytes);
  if (bytes && !can_bytes) return fail("this VM cannot sample by bytes (SampledObjectAlloc)");
  if (bytes && opt.sample_rate > 0x7fffffff) return fail("the byte interval must be < 2 GiB");
  if (!bytes && !can_count) return fail("this VM cannot report VMObjectAlloc events");

  jvmtiCapabilities caps{};
  caps.can_tag_objects = potential.can_tag_objects;
  caps.can_get_source_file_name = potential.can_get_source_file_name;
  if (bytes)
    caps.can_generate_sampled_object_alloc_events = 1;
  else
    caps.can_generate_vm_object_alloc_events = 1;
  if (jvmtiError e = env->AddCapabilities(&caps); e != JVMTI_ERROR_NONE)
    return fail("AddCapabilities failed: error " + std::to_string(e));

  g_agent = new Agent();
  g_agent->options = opt;
  g_agent->bytes_mode = bytes;
  std::string header = "# fathom-jvmti version=1 mode=" + std::string(bytes ? "bytes" : "count") +
                       " rate=" + std::to_string(opt.sample_rate) +
                       " event=" + (bytes ? "SampledObjectAlloc" : "VMObjectAlloc") +
                       " stack_depth_limit=" + std::to_string(opt.stack_depth_limit) +
                       " pid=" + std::to_string(getpid()) + " ts=" + std::to_string(BootNs()) +
                       " process=" + ProcessName(env);
  if (std::string err = g_agent->writer.Open(opt.log_path, header); !err.empty()) return fail(err);

  jvmtiEventCallbacks cb{};
  cb.SampledObjectAlloc = OnSampledObjectAlloc;
  cb.VMObjectAlloc = OnVMObjectAlloc;
  cb.VMDeath = OnVMDeath;
  env->SetEventCallbacks(&cb, sizeof(cb));
  if (bytes) {
    env->SetHeapSamplingInterval(static_cast<jint>(opt.sample_rate));
    env->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, nullptr);
  } else {
    env->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_VM_OBJECT_ALLOC, nullptr);
  }
  env->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, nullptr);
  return JNI_OK;
}

}  // namespace
}  // namespace fathom::jvmti

extern "C" JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void*) {
  return fathom::jvmti::Start(vm, options);
}

// `am attach-agent` / `am start --attach-agent` and the JDK Attach API.
extern "C" JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM* vm, char* options, void*) {
  return fathom::jvmti::Start(vm, options);
}
