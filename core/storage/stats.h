// Import statistics: what was dropped, lost or malformed. Names, severities and
// sources follow upstream Perfetto's `stats` table so users recognise them.
// Every known stat appears in the `stats` table, zero or not, as upstream does.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>

namespace fathom {

// F(enum_name, "sql name", severity, source, "description")
// severity: info | notice | data_loss | error;  source: trace | analysis
#define FATHOM_STATS(F)                                                                            \
  F(kTraceTruncated, "trace_truncated_bytes", data_loss, trace,                                    \
    "Bytes at the end of the file that did not form a whole packet (file cut short).")             \
  F(kProtoDecodeErrors, "proto_decode_errors", error, trace,                                       \
    "Packets or fields that were not valid protobuf and were skipped.")                            \
  F(kPacketsSkippedIncrementalState, "packet_skipped_seq_needs_incremental_state_invalid", notice, \
    analysis,                                                                                      \
    "Packets flagged SEQ_NEEDS_INCREMENTAL_STATE that were skipped: their sequence had no valid "  \
    "incremental state (never cleared yet, or a packet was dropped since the last clear).")        \
  F(kInternedDataSkippedIncrementalState, "interned_data_skipped_incremental_state_invalid",       \
    notice, analysis,                                                                              \
    "Packets whose interned_data was ignored: their sequence had no valid incremental state, so "  \
    "the entries could not be told apart from those of a lost generation.")                        \
  F(kInternedDataErrors, "interned_data_tokenizer_errors", error, analysis,                        \
    "Interned ids referenced before they were defined.")                                           \
  F(kCompressedPacketErrors, "compressed_packets_errors", error, trace,                            \
    "compressed_packets payloads that could not be inflated.")                                     \
  F(kSorterOutOfOrder, "sorter_push_event_out_of_order", error, analysis,                          \
    "Events pushed into the sorter out of order for their queue (sorted anyway).")                 \
  F(kClockSyncFailure, "clock_sync_failure", error, analysis,                                      \
    "Timestamps that could not be converted to the trace clock (dropped).")                        \
  F(kClockSyncFailureUnknownSourceClock, "clock_sync_failure_unknown_source_clock", error,         \
    analysis, "Timestamps in a clock that no clock snapshot holds (dropped).")                     \
  F(kClockSyncCacheMiss, "clock_sync_cache_miss", info, analysis,                                  \
    "Clock conversions the cache of recent conversion paths could not answer (a path search).")    \
  F(kAndroidLogNumFailed, "android_log_num_failed", error, trace,                                  \
    "Log lines the recorder could not read from the device's log buffers.")                        \
  F(kAndroidLogNumSkipped, "android_log_num_skipped", info, trace,                                 \
    "Log lines the recorder left out (filtered by tag or priority).")                              \
  F(kAndroidLogNumTotal, "android_log_num_total", info, trace,                                     \
    "Log lines the recorder read in all.")                                                         \
  F(kSystemdJournalNumFailed, "systemd_journal_num_failed", error, trace,                          \
    "systemd journal entries the recorder could not read.")                                        \
  F(kSystemdJournalNumTotal, "systemd_journal_num_total", info, trace,                             \
    "systemd journal entries the recorder read in all.")                                           \
  F(kFtraceBundleErrors, "ftrace_bundle_tokenizer_errors", error, analysis,                        \
    "ftrace bundles that could not be tokenized.")                                                 \
  F(kFtraceParseErrors, "ftrace_parse_errors", error, analysis,                                    \
    "ftrace events with bad payloads.")                                                            \
  F(kFtraceAbiErrorsSkippedZeroDataLength, "ftrace_abi_errors_skipped_zero_data_length", info,     \
    analysis, "ftrace pages with a zero data length event the reader skipped.")                    \
  F(kFtraceSetupErrors, "ftrace_setup_errors", notice, trace,                                      \
    "Ftrace events the recorder could not enable (unknown or failed) and atrace or exclusive "     \
    "feature errors, from the start-of-trace FtraceStats of each sequence.")                       \
  F(kFtraceLostEvents, "ftrace_bundle_lost_events", data_loss, trace,                              \
    "Bundles in which the kernel reported overwritten/lost events.")                               \
  F(kCompactSchedParseErrors, "compact_sched_has_parse_errors", error, trace,                      \
    "compact_sched bundles with mismatched array lengths or bad varints.")                         \
  F(kCompactSchedSwitchSkipped, "compact_sched_switch_skipped", info, analysis,                    \
    "First compact sched_switch per CPU, which only primes the previous task.")                    \
  F(kCompactSchedWakingSkipped, "compact_sched_waking_skipped", info, analysis,                    \
    "compact sched_waking events that could not be attributed.")                                   \
  F(kMismatchedSchedSwitchTids, "mismatched_sched_switch_tids", error, analysis,                   \
    "sched_switch prev_pid differs from the previous next_pid on the CPU.")                        \
  F(kSchedSwitchOutOfOrder, "sched_switch_out_of_order", error, analysis,                          \
    "sched_switch events earlier than the previous one on the same CPU (dropped).")                \
  F(kProcessTrackerErrors, "process_tracker_errors", error, analysis,                              \
    "Inconsistent process/thread associations.")                                                   \
  F(kProcessTrackerParentPidChanged, "process_tracker_parent_pid_changed", info, analysis,         \
    "A process dump gave a known process another parent (the first parent is kept).")              \
  F(kMisplacedEndEvent, "misplaced_end_event", data_loss, analysis,                                \
    "Slice end events with no matching begin.")                                                    \
  F(kFrameTimelineEventParserErrors, "frame_timeline_event_parser_errors", info, analysis,         \
    "FrameTimeline events missing a field they need (dropped).")                                   \
  F(kFrameTimelineUnpairedEndEvent, "frame_timeline_unpaired_end_event", info, analysis,           \
    "FrameTimeline FrameEnd events whose cookie matches no open frame.")                           \
  F(kSystraceParseFailure, "systrace_parse_failure", error, analysis,                              \
    "atrace/print markers that could not be parsed.")                                              \
  F(kTrackEventParserErrors, "track_event_parser_errors", error, analysis,                         \
    "TrackEvents that could not be parsed.")                                                       \
  F(kTrackEventTokenizerErrors, "track_event_tokenizer_errors", error, analysis,                   \
    "TrackEvent packets that could not be tokenized.")                                             \
  F(kTrackEventInvalidTimestamp, "track_event_invalid_timestamp", error, analysis,                 \
    "TrackEvents whose timestamp overflows int64 nanoseconds (dropped).")                          \
  F(kTrackEventCounterMissingTrackUuid, "track_event_counter_missing_track_uuid", error, analysis, \
    "Counter TrackEvents with no track_uuid (nor a default one): dropped.")                        \
  F(kTrackEventCounterMissingValue, "track_event_counter_missing_value", error, analysis,          \
    "Counter TrackEvents without counter_value or double_counter_value: dropped.")                 \
  F(kTrackEventCounterInvalidTrackUuid, "track_event_counter_invalid_track_uuid", error, analysis, \
    "Counter TrackEvents whose track_uuid names no counter track (undescribed, e.g. its "          \
    "descriptor was lost, or not a counter): dropped.")                                            \
  F(kStreamingProfileInvalidTimestamp, "streaming_profile_invalid_timestamp", error, analysis,     \
    "Streaming profile samples whose timestamp overflows int64 nanoseconds (dropped).")            \
  F(kTrackHierarchyLoop, "track_event_track_hierarchy_loop", error, analysis,                      \
    "Track descriptors that are their own ancestor through parent_uuid (track and events "         \
    "dropped; counted per use).")                                                                  \
  F(kTrackHierarchyMissingUuid, "track_hierarchy_missing_uuid", info, analysis,                    \
    "Track descriptors whose parent_uuid no descriptor has (track and events dropped; counted "    \
    "per use).")                                                                                   \
  F(kSliceMaxDepthExceeded, "slice_max_depth_exceeded", error, analysis,                           \
    "Slices dropped because their track's nesting was already at the maximum depth (512).")        \
  F(kRssStatUnknownKeys, "rss_stat_unknown_keys", error, analysis,                                 \
    "rss_stat with an unknown member.")                                                            \
  F(kRssStatNegativeSize, "rss_stat_negative_size", info, analysis,                                \
    "rss_stat with a negative size.")                                                              \
  F(kRssStatUnknownThreadForMmId, "rss_stat_unknown_thread_for_mm_id", info, analysis,             \
    "rss_stat of another task's mm (curr = 0) whose owner was never seen (curr = 1).")             \
  F(kMeminfoUnknownKeys, "meminfo_unknown_keys", error, analysis, "Unknown meminfo counters.")     \
  F(kVmstatUnknownKeys, "vmstat_unknown_keys", error, analysis, "Unknown vmstat counters.")        \
  F(kPowerRailUnknownIndex, "power_rail_unknown_index", error, trace,                              \
    "Power rail energy data for an index that has no descriptor.")                                 \
  F(kTracedBufSequencePacketLoss, "traced_buf_sequence_packet_loss", data_loss, trace,             \
    "Per-sequence packet loss reported by traced (indexed by sequence).")                          \
  F(kTracedBufDataLossReadGap, "traced_buf_data_loss_read_gap", data_loss, trace,                  \
    "Packets lost to a gap in what traced read (DataLossReason bit; indexed by buffer).")          \
  F(kTracedBufDataLossChunkCorrupted, "traced_buf_data_loss_chunk_corrupted", data_loss, trace,    \
    "Packets lost to a corrupted chunk (DataLossReason bit; indexed by buffer).")                  \
  F(kTracedBufDataLossOrphanContinuation, "traced_buf_data_loss_orphan_continuation", data_loss,   \
    trace, "Packets lost as continuations of a missing fragment (indexed by buffer).")             \
  F(kTracedBufDataLossReassemblyGap, "traced_buf_data_loss_reassembly_gap", data_loss, trace,      \
    "Packets lost to a gap while reassembling fragments (indexed by buffer).")                     \
  F(kTracedBufDataLossReassemblyBrokenChain, "traced_buf_data_loss_reassembly_broken_chain",       \
    data_loss, trace, "Packets lost to a broken fragment chain (indexed by buffer).")              \
  F(kTracedBufDataLossOverwrite, "traced_buf_data_loss_overwrite", data_loss, trace,               \
    "Packets lost to ring buffer overwrites (indexed by buffer).")                                 \
  F(kTracedBufDataLossWriterAbort, "traced_buf_data_loss_writer_abort", data_loss, trace,          \
    "Packets lost because their writer aborted (indexed by buffer).")                              \
  F(kTracedBufDataLossSmbFull, "traced_buf_data_loss_smb_full", data_loss, trace,                  \
    "Packets lost because the shared memory buffer was full (indexed by buffer).")                 \
  F(kTracedBufIncrementalSequencesDropped, "traced_buf_incremental_sequences_dropped", data_loss,  \
    analysis,                                                                                      \
    "Sequences none of whose packets needing incremental state could be parsed (indexed by "       \
    "buffer).")                                                                                    \
  F(kTracedChunksDiscarded, "traced_chunks_discarded", info, trace, "Chunks traced discarded.")    \
  F(kTracedBufBytesFilteredOut, "traced_buf_bytes_filtered_out", info, trace,                      \
    "Bytes the trace filter removed (indexed by buffer).")                                         \
  F(kFilterInputPackets, "filter_input_packets", info, trace, "Packets seen by the trace filter.") \
  F(kFilterInputBytes, "filter_input_bytes", info, trace, "Bytes seen by the trace filter.")       \
  F(kFilterOutputBytes, "filter_output_bytes", info, trace, "Bytes the trace filter kept.")        \
  F(kFilterErrors, "filter_errors", error, trace, "Trace filter errors.")                          \
  F(kFilterTimeTakenNs, "filter_time_taken_ns", info, trace, "Time spent in the trace filter.")    \
  F(kProcStatUnknownCounters, "proc_stat_unknown_counters", error, analysis,                       \
    "ProcessStats fields with no known counter.")                                                  \
  F(kInvalidCpuTimes, "invalid_cpu_times", error, analysis, "SysStats cpu_stat without a cpu id.") \
  F(kPsiUnknownResource, "psi_unknown_resource", error, analysis,                                  \
    "PSI samples of unknown resource.")                                                            \
  F(kCpuInfoUnknownCpuFeatures, "cpu_info_unknown_cpu_features", info, analysis,                   \
    "CPUs whose CpuInfo features bitmap has bits without a name (kept in "                         \
    "cpu_features.raw_bitmap).")                                                                   \
  F(kCpuInfoEmpty, "cpu_info_empty", error, analysis,                                              \
    "CpuInfo packets listing no CPUs (/proc/cpuinfo unreadable where the trace was recorded).")    \
  F(kEnergyDescriptorInvalid, "energy_descriptor_invalid", error, analysis,                        \
    "Entity state residency without a matching descriptor.")                                       \
  /* TraceStats.BufferStats, one row per buffer (idx = its position in the */                      \
  /* packet), all of them for every buffer listed, as upstream. */                                 \
  F(kTracedBufBufferSize, "traced_buf_buffer_size", info, trace, "Buffer size.")                   \
  F(kTracedBufBytesWritten, "traced_buf_bytes_written", info, trace, "Bytes written.")             \
  F(kTracedBufBytesOverwritten, "traced_buf_bytes_overwritten", info, trace,                       \
    "Bytes overwritten in the ring buffer.")                                                       \
  F(kTracedBufBytesRead, "traced_buf_bytes_read", info, trace, "Bytes read out of the buffer.")    \
  F(kTracedBufPaddingBytesWritten, "traced_buf_padding_bytes_written", info, trace,                \
    "Padding bytes written.")                                                                      \
  F(kTracedBufPaddingBytesCleared, "traced_buf_padding_bytes_cleared", info, trace,                \
    "Padding bytes cleared.")                                                                      \
  F(kTracedBufChunksWritten, "traced_buf_chunks_written", info, trace, "Chunks written.")          \
  F(kTracedBufChunksRewritten, "traced_buf_chunks_rewritten", info, trace, "Chunks rewritten.")    \
  F(kTracedBufChunksOverwritten, "traced_buf_chunks_overwritten", info, trace,                     \
    "Chunks overwritten.")                                                                         \
  F(kTracedBufChunksDiscarded, "traced_buf_chunks_discarded", info, trace, "Chunks discarded.")    \
  F(kTracedBufChunksRead, "traced_buf_chunks_read", info, trace, "Chunks read.")                   \
  F(kTracedBufChunksCommittedOutOfOrder, "traced_buf_chunks_committed_out_of_order", info, trace,  \
    "Chunks committed out of order.")                                                              \
  F(kTracedBufChunksRelocated, "traced_buf_chunks_relocated", info, trace, "Chunks relocated.")    \
  F(kTracedBufWriteWrapCount, "traced_buf_write_wrap_count", info, trace,                          \
    "Times the ring buffer wrapped.")                                                              \
  F(kTracedBufPatchesSucceeded, "traced_buf_patches_succeeded", info, trace,                       \
    "Chunk patches that succeeded.")                                                               \
  F(kTracedBufPatchesFailed, "traced_buf_patches_failed", data_loss, trace,                        \
    "Chunk patches that failed.")                                                                  \
  F(kTracedBufReadaheadsSucceeded, "traced_buf_readaheads_succeeded", info, trace,                 \
    "Read-aheads that succeeded.")                                                                 \
  F(kTracedBufReadaheadsFailed, "traced_buf_readaheads_failed", info, trace,                       \
    "Read-aheads that failed.")                                                                    \
  F(kTracedBufAbiViolations, "traced_buf_abi_violations", data_loss, trace,                        \
    "Producer ABI violations.")                                                                    \
  F(kTracedBufTraceWriterPacketLoss, "traced_buf_trace_writer_packet_loss", data_loss, trace,      \
    "Packets lost by trace writers.")                                                              \
  F(kTracedProducersConnected, "traced_producers_connected", info, trace, "Producers connected.")  \
  F(kTracedProducersSeen, "traced_producers_seen", info, trace, "Producers seen.")                 \
  F(kTracedDataSourcesRegistered, "traced_data_sources_registered", info, trace,                   \
    "Data sources registered.")                                                                    \
  F(kTracedDataSourcesSeen, "traced_data_sources_seen", info, trace, "Data sources seen.")         \
  F(kTracedTracingSessions, "traced_tracing_sessions", info, trace, "Tracing sessions.")           \
  F(kTracedTotalBuffers, "traced_total_buffers", info, trace, "Buffers.")                          \
  F(kTracedPatchesDiscarded, "traced_patches_discarded", info, trace, "Patches discarded.")        \
  F(kTracedFlushesRequested, "traced_flushes_requested", info, trace, "Flushes requested.")        \
  F(kTracedFlushesSucceeded, "traced_flushes_succeeded", info, trace, "Flushes succeeded.")        \
  F(kTracedFlushesFailed, "traced_flushes_failed", data_loss, trace, "Flushes failed.")            \
  F(kTracedFinalFlushSucceeded, "traced_final_flush_succeeded", info, trace, "Final flushes ok.")  \
  F(kTracedFinalFlushFailed, "traced_final_flush_failed", data_loss, trace,                        \
    "Final flushes failed.")                                                                       \
  F(kJsonParseErrors, "json_parser_failure", error, trace,                                         \
    "Chrome JSON events that could not be read.")                                                  \
  F(kJsonUnsupportedEvents, "json_unsupported_events", info, trace,                                \
    "Chrome JSON events of a phase this build does not import (e.g. P samples).")                  \
  F(kJsonTokenizerFailure, "json_tokenizer_failure", error, trace,                                 \
    "Chrome JSON text that could not be split into events.")                                       \
  F(kSliceSpillOverlappingComplete, "slice_spill_overlapping_complete_event", error, analysis,     \
    "Complete slices that partially overlap another on their thread, moved to an overflow track "  \
    "of that thread instead of being dropped.")                                                    \
  F(kGameInterventionHasParseErrors, "game_intervention_has_parse_errors", error, trace,           \
    "The game intervention list had entries the device could not parse (unknown modes or "         \
    "interventions).")                                                                             \
  F(kGameInterventionHasReadErrors, "game_intervention_has_read_errors", error, trace,             \
    "The device could not read the game intervention list file (missing or not permitted).")       \
  F(kAndroidAflagsErrors, "android_aflags_errors", error, trace,                                   \
    "The android.aflags data source reported that it could not collect the aconfig flags.")        \
  F(kSliceDropOverlappingComplete, "slice_drop_overlapping_complete_event", error, analysis,       \
    "Complete slices that partially overlap another on their track and were dropped.")             \
  F(kGenericTaskStateInvalidOrder, "generic_task_state_invalid_order", error, analysis,            \
    "Invalid order of generic task state events. Should never happen.")                            \
  /* profilers (core/import/profile_*, heap_graph_*) */                                            \
  /* heapprofd per-process stats: upstream has them only per index (pid, or upid */                \
  /* for malformed_packet), so they have no row until a dump sets them. */                         \
  F(kHeapprofdBufferCorrupted, "heapprofd_buffer_corrupted", error, trace,                         \
    "heapprofd clients whose shared buffer got corrupted (indexed by pid).")                       \
  F(kHeapprofdHitGuardrail, "heapprofd_hit_guardrail", error, trace,                               \
    "heapprofd sessions stopped by a guardrail (indexed by pid).")                                 \
  F(kHeapprofdBufferOverran, "heapprofd_buffer_overran", data_loss, trace,                         \
    "heapprofd clients that overran the shared buffer or timed out (indexed by pid).")             \
  F(kHeapprofdClientError, "heapprofd_client_error", error, trace,                                 \
    "The heapprofd client's error code (ProcessHeapSamples.client_error, indexed by pid).")        \
  F(kHeapprofdClientDisconnected, "heapprofd_client_disconnected", info, trace,                    \
    "heapprofd clients that disconnected before the end (indexed by pid).")                        \
  F(kHeapprofdMalformedPacket, "heapprofd_malformed_packet", error, trace,                         \
    "heapprofd samples whose cumulative counters went backwards, skipped (indexed by upid).")      \
  F(kHeapprofdRejected, "heapprofd_rejected_concurrent", error, trace,                             \
    "Processes heapprofd did not profile: already profiled concurrently (indexed by pid).")        \
  F(kHeapprofdSamplingIntervalAdjusted, "heapprofd_sampling_interval_adjusted", info, trace,       \
    "Bytes by which adaptive sampling raised the sampling interval (indexed by pid).")             \
  F(kHeapprofdUnwindTimeUs, "heapprofd_unwind_time_us", info, trace,                               \
    "Microseconds heapprofd spent unwinding (indexed by pid).")                                    \
  F(kHeapprofdUnwindSamples, "heapprofd_unwind_samples", info, trace,                              \
    "Samples heapprofd unwound (indexed by pid).")                                                 \
  F(kHeapprofdClientSpinlockBlocked, "heapprofd_client_spinlock_blocked", info, trace,             \
    "Microseconds the heapprofd client waited on its spinlock (indexed by pid).")                  \
  F(kHeapprofdLastProfileTimestamp, "heapprofd_last_profile_timestamp", info, trace,               \
    "Trace time of the last ProfilePacket that dumped the process (indexed by pid).")              \
  F(kHeapprofdMissingPacket, "heapprofd_missing_packet", error, trace,                             \
    "Gaps in the ProfilePacket index sequence.")                                                   \
  F(kHeapprofdNonFinalizedProfile, "heapprofd_non_finalized_profile", error, trace,                \
    "heapprofd dumps whose last (continued=false) packet never arrived.")                          \
  F(kStackProfileEmptyCallstack, "stackprofile_empty_callstack", error, trace,                     \
    "Profile callstacks without frames (ignored).")                                                \
  F(kStackProfileInvalidStringId, "stackprofile_invalid_string_id", error, trace,                  \
    "Profile strings (function names, build ids, mapping paths) referenced but not defined.")      \
  F(kStackProfileInvalidMappingId, "stackprofile_invalid_mapping_id", error, trace,                \
    "Profile mappings referenced but not defined (or not valid).")                                 \
  F(kStackProfileInvalidFrameId, "stackprofile_invalid_frame_id", error, trace,                    \
    "Profile frames referenced but not defined (or not valid).")                                   \
  F(kStackProfileInvalidCallstackId, "stackprofile_invalid_callstack_id", error, trace,            \
    "Profile callstacks referenced but not defined (or not valid).")                               \
  F(kSymbolizationTmpBuildIdNotFound, "symbolization_tmp_build_id_not_found", error, analysis,     \
    "Mappings in /data/local/tmp without a build id (symbolizers cannot read them there).")        \
  F(kPerfSamplesSkipped, "perf_samples_skipped", info, trace,                                      \
    "perf samples the profiler reported as skipped.")                                              \
  F(kPerfKernelRecordsLost, "perf_samples_skipped_dataloss", data_loss, trace,                     \
    "perf records the kernel lost (ring buffer overrun).")                                         \
  F(kHeapGraphNonFinalized, "heap_graph_non_finalized_graph", data_loss, trace,                    \
    "Heap graph dumps whose last (continued=false) packet never arrived.")                         \
  F(kHeapGraphMissingPacket, "heap_graph_missing_packet", data_loss, trace,                        \
    "Gaps in a heap graph dump's packet index (indexed by upid).")                                 \
  F(kHeapGraphInvalidId, "heap_graph_invalid_string_id", error, trace,                             \
    "Heap graph type/field/location ids referenced but never defined (indexed by upid).")          \
  F(kHeapGraphMalformed, "heap_graph_malformed_packet", error, trace,                              \
    "Heap graph objects sized by an undefined type, or with more references than their class has " \
    "fields or fields without names (indexed by upid).")                                           \
  /* HPROF heap dumps (core/import/hprof) */                                                       \
  F(kHprofStrings, "hprof_string_counter", info, analysis, "Number of strings encountered.")       \
  F(kHprofClasses, "hprof_class_counter", info, analysis, "Number of classes encountered.")        \
  F(kHprofHeapDumps, "hprof_heap_dump_counter", info, analysis,                                    \
    "Number of heap dumps encountered.")                                                           \
  F(kHprofInstances, "hprof_instance_counter", info, analysis, "Number of instances encountered.") \
  F(kHprofObjectArrays, "hprof_object_array_counter", info, analysis,                              \
    "Number of object arrays encountered.")                                                        \
  F(kHprofPrimitiveArrays, "hprof_primitive_array_counter", info, analysis,                        \
    "Number of primitive arrays encountered.")                                                     \
  F(kHprofRoots, "hprof_root_counter", info, analysis, "Number of roots encountered.")             \
  F(kHprofReferences, "hprof_reference_counter", info, analysis,                                   \
    "Number of references encountered.")                                                           \
  F(kHprofRecords, "hprof_record_counter", info, analysis, "Total number of records parsed.")      \
  F(kHprofSegmentOvershoots, "hprof_segment_overshoot_counter", info, analysis,                    \
    "HEAP_DUMP_SEGMENTs whose last sub-record ran past the segment's declared end.")               \
  F(kHprofFieldValueErrors, "hprof_field_value_errors", error, analysis,                           \
    "Instance field values that could not be read (malformed HPROF).")                             \
  F(kHprofClassErrors, "hprof_class_errors", error, analysis,                                      \
    "Classes that could not be read or objects of unknown classes (malformed HPROF).")             \
  F(kHprofHeaderErrors, "hprof_header_errors", error, analysis,                                    \
    "HPROF headers that could not be read (no heap graph was loaded).")                            \
  F(kHprofHeapDumpErrors, "hprof_heap_dump_errors", error, analysis,                               \
    "Heap dump records that could not be read; the rest of the file was not loaded.")              \
  F(kHprofPrimitiveArrayErrors, "hprof_primitive_array_parsing_errors", error, analysis,           \
    "Primitive arrays whose array class was never loaded (malformed HPROF).")                      \
  F(kHprofReferenceErrors, "hprof_reference_errors", error, analysis,                              \
    "Object references that could not be read (malformed HPROF).")                                 \
  F(kStraceParseFailure, "strace_parse_failure", info, trace,                                      \
    "strace lines that are no syscall (signals, exits, other text); skipped.")                     \
  F(kStraceUnsupportedTimestampFormat, "strace_unsupported_timestamp_format", error, trace,        \
    "strace syscall lines with time-of-day stamps (-t/-tt, no date) rather than -ttt; skipped.")   \
  F(kStraceMissingPid, "strace_missing_pid", error, trace,                                         \
    "strace syscall lines without a pid (strace run without -f); skipped.")                        \
  F(kArtAllocLogMalformed, "art_alloc_log_malformed_lines", error, trace,                          \
    "tiallocsample log lines that could not be parsed or referenced undefined keys (skipped).")    \
  F(kArtAllocLogMalformedAt, "art_alloc_log_malformed_line_number", error, trace,                  \
    "The first 1000 malformed tiallocsample log lines (indexed by 1-based line number).")          \
  F(kPprofLabelsIgnored, "pprof_labels_ignored", info, trace,                                      \
    "pprof Sample labels (key/value annotations) seen but not imported.")                          \
  F(kStackProfileParserError, "stackprofile_parser_error", error, trace,                           \
    "StreamingProfilePacket samples with no timestamp or an unknown callstack (skipped).")         \
  F(kParseTraceDurationNs, "parse_trace_duration_ns", info, analysis,                              \
    "Wall time the load took, in nanoseconds.")                                                    \
  FATHOM_FTRACE_STATS(F)

// What the kernel's ftrace buffers reported at the start and end of the
// recording (FtraceStats packets): per-CPU counters indexed by CPU, kprobe
// counters for the whole machine, and end minus start where both were seen.
#define FATHOM_FTRACE_STATS(F)                                                             \
  F(kFtraceKprobeHitsBegin, "ftrace_kprobe_hits_begin", info, trace,                       \
    "kretprobe hits the kernel reported when the recording started.")                      \
  F(kFtraceKprobeHitsEnd, "ftrace_kprobe_hits_end", info, trace,                           \
    "kretprobe hits the kernel reported when the recording ended.")                        \
  F(kFtraceKprobeHitsDelta, "ftrace_kprobe_hits_delta", info, trace,                       \
    "kretprobe hits during the recording (end minus start).")                              \
  F(kFtraceKprobeMissesBegin, "ftrace_kprobe_misses_begin", info, trace,                   \
    "kretprobe misses the kernel reported when the recording started.")                    \
  F(kFtraceKprobeMissesEnd, "ftrace_kprobe_misses_end", info, trace,                       \
    "kretprobe misses the kernel reported when the recording ended.")                      \
  F(kFtraceKprobeMissesDelta, "ftrace_kprobe_misses_delta", data_loss, trace,              \
    "kretprobe events missed during the recording (the probe's maxactive was too small).") \
  F(kFtraceCpuEntriesBegin, "ftrace_cpu_entries_begin", info, trace, "")                   \
  F(kFtraceCpuEntriesEnd, "ftrace_cpu_entries_end", info, trace, "")                       \
  F(kFtraceCpuEntriesDelta, "ftrace_cpu_entries_delta", info, trace, "")                   \
  F(kFtraceCpuOverrunBegin, "ftrace_cpu_overrun_begin", info, trace, "")                   \
  F(kFtraceCpuOverrunEnd, "ftrace_cpu_overrun_end", info, trace, "")                       \
  F(kFtraceCpuOverrunDelta, "ftrace_cpu_overrun_delta", info, trace, "")                   \
  F(kFtraceCpuCommitOverrunBegin, "ftrace_cpu_commit_overrun_begin", info, trace, "")      \
  F(kFtraceCpuCommitOverrunEnd, "ftrace_cpu_commit_overrun_end", info, trace, "")          \
  F(kFtraceCpuCommitOverrunDelta, "ftrace_cpu_commit_overrun_delta", error, trace, "")     \
  F(kFtraceCpuBytesBegin, "ftrace_cpu_bytes_begin", info, trace, "")                       \
  F(kFtraceCpuBytesEnd, "ftrace_cpu_bytes_end", info, trace, "")                           \
  F(kFtraceCpuBytesDelta, "ftrace_cpu_bytes_delta", info, trace, "")                       \
  F(kFtraceCpuDroppedEventsBegin, "ftrace_cpu_dropped_events_begin", info, trace, "")      \
  F(kFtraceCpuDroppedEventsEnd, "ftrace_cpu_dropped_events_end", info, trace, "")          \
  F(kFtraceCpuDroppedEventsDelta, "ftrace_cpu_dropped_events_delta", error, trace, "")     \
  F(kFtraceCpuReadEventsBegin, "ftrace_cpu_read_events_begin", info, trace, "")            \
  F(kFtraceCpuReadEventsEnd, "ftrace_cpu_read_events_end", info, trace, "")                \
  F(kFtraceCpuReadEventsDelta, "ftrace_cpu_read_events_delta", info, trace, "")            \
  F(kFtraceCpuNowTsBegin, "ftrace_cpu_now_ts_begin", info, trace, "")                      \
  F(kFtraceCpuNowTsEnd, "ftrace_cpu_now_ts_end", info, trace, "")                          \
  F(kFtraceCpuOldestEventTsBegin, "ftrace_cpu_oldest_event_ts_begin", info, trace, "")     \
  F(kFtraceCpuOldestEventTsEnd, "ftrace_cpu_oldest_event_ts_end", info, trace, "")

enum class Stat : uint32_t {
#define FATHOM_STAT_ENUM(e, ...) e,
  FATHOM_STATS(FATHOM_STAT_ENUM)
#undef FATHOM_STAT_ENUM
      kCount
};

struct StatInfo {
  const char* name;
  const char* severity;
  const char* source;
  const char* description;
};

inline const StatInfo& GetStatInfo(Stat s) {
  static const StatInfo kInfos[] = {
#define FATHOM_STAT_INFO(e, name, sev, src, desc) {name, #sev, #src, desc},
      FATHOM_STATS(FATHOM_STAT_INFO)
#undef FATHOM_STAT_INFO
  };
  return kInfos[static_cast<uint32_t>(s)];
}

// Upstream scopes most stats to one machine within one trace (one row per
// machine: machine_id and trace_id set); these few describe the load as a
// whole (both NULL).
inline bool IsLoadWideStat(Stat s) {
  switch (s) {
    case Stat::kParseTraceDurationNs:
    case Stat::kClockSyncCacheMiss:
    case Stat::kSorterOutOfOrder:
    case Stat::kHeapGraphNonFinalized:
      return true;
    default:
      return false;
  }
}

// Told of every counted stat while a load runs, so that the loader can say
// where in the file each problem happened (see core/load/stat_problems.h).
class StatObserver {
 public:
  virtual ~StatObserver() = default;
  virtual void OnCounted(Stat s) = 0;
};

class Stats {
 public:
  void Increment(Stat s, int64_t by = 1) {
    values_[static_cast<uint32_t>(s)] += by;
    if (observer_) observer_->OnCounted(s);
  }
  // At most one observer; nullptr removes it. Not owned.
  void set_observer(StatObserver* observer) { observer_ = observer; }
  void Set(Stat s, int64_t v) { values_[static_cast<uint32_t>(s)] = v; }
  int64_t Get(Stat s) const { return values_[static_cast<uint32_t>(s)]; }
  void SetIndexed(Stat s, int64_t idx, int64_t v) { indexed_[static_cast<uint32_t>(s)][idx] = v; }
  void IncrementIndexed(Stat s, int64_t idx, int64_t by = 1) {
    indexed_[static_cast<uint32_t>(s)][idx] += by;
    if (observer_) observer_->OnCounted(s);
  }
  const std::map<int64_t, int64_t>* GetIndexed(Stat s) const {
    auto it = indexed_.find(static_cast<uint32_t>(s));
    return it == indexed_.end() ? nullptr : &it->second;
  }

 private:
  std::array<int64_t, static_cast<size_t>(Stat::kCount)> values_{};
  std::map<uint32_t, std::map<int64_t, int64_t>> indexed_;
  StatObserver* observer_ = nullptr;
};

}  // namespace fathom
