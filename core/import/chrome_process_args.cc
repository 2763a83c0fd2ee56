#include "core/import/chrome_process_args.h"

#include <optional>
#include <string_view>

#include "core/import/args_tracker.h"
#include "core/import/trace_context.h"
#include "perfetto/trace/trace.pb.h"

namespace fathom {
namespace {

using perfetto::protos::ChromeProcessDescriptor;
using proto::Decoder;
using proto::Field;

// Display names of Chrome's process types by ChromeProcessDescriptor
// process_type value (as upstream's trace processor shows them; values past
// the table, and 0, have none).
constexpr std::string_view kProcessTypeNames[] = {
    {},
    "Browser",
    "Renderer",
    "Utility",
    "SandboxHelper",
    "PROCESS_SANDBOX_HELPER",
    "Gpu",
    "PpapiPlugin",
    "PpapiBroker",
    "Service: network.mojom.NetworkService",
    "Service: tracing.mojom.TracingService",
    "Service: storage.mojom.StorageService",
    "Service: audio.mojom.AudioService",
    "Service: data_decoder.mojom.DataDecoderService",
    "Service: chrome.mojom.UtilWin",
    "Service: proxy_resolver.mojom.ProxyResolverFactory",
    "Service: media.mojom.CdmServiceBroker",
    "Service: video_capture.mojom.VideoCaptureService",
    "Service: unzip.mojom.Unzipper",
    "Service: mirroring.mojom.MirroringService",
    "Service: patch.mojom.FilePatcher",
    "Service: chromeos.tts.mojom.TtsService",
    "Service: printing.mojom.PrintingService",
    "Service: quarantine.mojom.Quarantine",
    "Service: chromeos.local_search_service.mojom.LocalSearchService",
    "Service: chromeos.assistant.mojom.AssistantAudioDecoderFactory",
    "Service: chrome.mojom.FileUtilService",
    "Service: printing.mojom.PrintCompositor",
    "Service: paint_preview.mojom.PaintPreviewCompositorCollection",
    "Service: media.mojom.SpeechRecognitionService",
    "Service: device.mojom.XRDeviceService",
    "Service: chrome.mojom.UtilReadIcon",
    "Service: language_detection.mojom.LanguageDetectionService",
    "Service: sharing.mojom.Sharing",
    "Service: chrome.mojom.MediaParserFactory",
    "Service: qrcode_generator.mojom.QRCodeService",
    "Service: chrome.mojom.ProfileImport",
    "Service: chromeos.ime.mojom.ImeService",
    "Service: recording.mojom.RecordingService",
    "Service: shape_detection.mojom.ShapeDetectionService",
    "Extension Renderer",
    "Service: media.mojom.MediaFoundationServiceBroker",
    "PROCESS_RENDERER_TOP_WEBUI",
};

}  // namespace

bool AddChromeProcessArgs(proto::Bytes chrome_process, uint32_t upid, TraceContext* ctx) {
  using C = ChromeProcessDescriptor;
  TraceStorage* storage = ctx->storage.get();
  auto args = ctx->args_tracker->NewSet();
  // chrome.process_type is written even when unset (as a NULL string).
  StringId type = kNullStringId;
  std::optional<std::string_view> host_app;
  std::optional<uint64_t> crash_trace_id;
  Decoder d(chrome_process);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == C::kProcessTypeFieldNumber) {
      int32_t t = f.as_int32();
      constexpr int32_t kKnown = std::size(kProcessTypeNames);
      type = t > 0 && t < kKnown ? storage->Intern(kProcessTypeNames[t]) : kNullStringId;
    }
    if (f.id == C::kHostAppPackageNameFieldNumber) host_app = f.as_string();
    if (f.id == C::kCrashTraceIdFieldNumber) crash_trace_id = f.int_value;
  }
  if (d.error()) return false;
  args.AddString("chrome.process_type", type);
  if (crash_trace_id) args.AddUint("chrome.crash_trace_id", *crash_trace_id);
  if (host_app) args.AddString("chrome.host_app_package_name", *host_app);
  ProcessTable& processes = storage->process;
  if (auto set = args.CommitMerged(processes.arg_set_id.Get(upid)))
    processes.arg_set_id.Set(upid, *set);
  return true;
}

}  // namespace fathom
