#!/usr/bin/env python3
"""Convert the Perfetto wire-format fact sheet into .proto files.

Inputs (markdown, same table format in both):
  * the fact sheet (perfetto-wire-format.md): `#### MessageName` headings
    followed by `| # | field | type | wire | label | meaning |` tables,
    nested messages written `Parent.Child`, enums written `#### enum X`
    followed by `A=0, B=1` lines (or by `| value | enum | ... |` tables);
  * protos/tools/supplement.md: messages, fields and enum values that the
    fact sheet omits or only references, with numbers taken from upstream
    Perfetto.  Tables for a message that the fact sheet already has are
    merged into it (a number or name clash with different content is an
    error).  A `#### omit TypeName` section (with the reason as body text)
    declares that fields referring to TypeName are left out on purpose; they
    are written into the .proto as comments.  Any other type that is
    referenced but never defined is an error: nothing is replaced silently.

Output: one .proto per entry of FILES below (proto2, package
perfetto.protos).  Imports are computed from the cross-file references and an
import cycle is an error.

Usage (from the repository root):
  protos/tools/spec_to_proto.py            # regenerate protos/perfetto/**
  protos/tools/spec_to_proto.py --check    # fail if checked-in files differ
Defaults: --spec ../shared/spec/perfetto-wire-format.md (next to the
repository), --supplement protos/tools/supplement.md, --out protos/.
The build never runs this script; its output is checked in.
"""

import argparse
import collections
import os
import re
import sys

PACKAGE = "perfetto.protos"

SCALARS = {
    "double", "float", "int32", "int64", "uint32", "uint64", "sint32",
    "sint64", "fixed32", "fixed64", "sfixed32", "sfixed64", "bool", "string",
    "bytes",
}
WIRE_OF = {
    "double": "I64", "fixed64": "I64", "sfixed64": "I64",
    "float": "I32", "fixed32": "I32", "sfixed32": "I32",
    "string": "LEN", "bytes": "LEN",
}

# Output layout: file -> top-level names (messages or enums) it holds.
# Nested types always live with their outermost parent.
FILES = collections.OrderedDict([
    # -- common: shared enums and service-level messages --
    ("perfetto/common/builtin_clock.proto", ["BuiltinClock"]),
    ("perfetto/common/sys_stats_counters.proto",
     ["MeminfoCounters", "VmstatCounters"]),
    ("perfetto/common/android_log_constants.proto",
     ["AndroidLogId", "AndroidLogPriority"]),
    ("perfetto/common/perf_events.proto", ["PerfEvents", "FollowerEvent"]),
    ("perfetto/common/trace_stats.proto", ["TraceStats"]),
    ("perfetto/common/trace_attributes.proto", ["TraceAttributes"]),
    # -- config --
    ("perfetto/config/ftrace_config.proto", ["FtraceConfig"]),
    ("perfetto/config/process_stats_config.proto", ["ProcessStatsConfig"]),
    ("perfetto/config/sys_stats_config.proto", ["SysStatsConfig"]),
    ("perfetto/config/inode_file_config.proto", ["InodeFileConfig"]),
    ("perfetto/config/profiling_config.proto",
     ["HeapprofdConfig", "JavaHprofConfig", "SmapsConfig", "RedactionRule",
      "PerfEventConfig"]),
    ("perfetto/config/android_config.proto",
     ["AndroidLogConfig", "AndroidPowerConfig", "PackagesListConfig",
      "AndroidPolledStateConfig", "AndroidSystemPropertyConfig"]),
    ("perfetto/config/track_event_config.proto", ["TrackEventConfig"]),
    ("perfetto/config/chrome_config.proto", ["ChromeConfig"]),
    ("perfetto/config/test_config.proto", ["TestConfig"]),
    ("perfetto/config/priority_boost_config.proto", ["PriorityBoostConfig"]),
    ("perfetto/config/data_source_config.proto",
     ["DataSourceConfig", "SystemInfoConfig"]),
    ("perfetto/config/trace_config.proto", ["TraceConfig"]),
    # -- trace --
    ("perfetto/trace/clock_snapshot.proto",
     ["ClockSnapshot", "RemoteClockSync"]),
    ("perfetto/trace/profiling/profile_common.proto",
     ["InternedString", "Mapping", "Frame", "Callstack", "ModuleSymbols",
      "AddressSymbols", "Line"]),
    ("perfetto/trace/profiling/profile_packet.proto",
     ["ProfilePacket", "StreamingAllocation", "StreamingFree",
      "StreamingProfilePacket", "Profiling", "PerfSample",
      "PerfSampleDefaults", "StackSample", "StackSampleDefaults",
      "ArtProcessMetadata", "JavaStack", "JavaFrame", "SmapsPacket",
      "SmapsEntry"]),
    ("perfetto/trace/profiling/deobfuscation.proto",
     ["DeobfuscationMapping", "ObfuscatedClass", "ObfuscatedMember"]),
    ("perfetto/trace/profiling/heap_graph.proto",
     ["HeapGraph", "HeapGraphObject", "HeapGraphType", "HeapGraphRoot"]),
    ("perfetto/trace/ftrace/ftrace.proto", None),  # every *FtraceEvent
    ("perfetto/trace/ftrace/ftrace_stats.proto",
     ["FtraceStats", "FtraceCpuStats", "FtraceKprobeStats",
      "FtraceParseStatus"]),
    ("perfetto/trace/ftrace/ftrace_event_bundle.proto",
     ["FtraceEventBundle", "FtraceEvent", "FtraceClock", "KprobeEvent"]),
    ("perfetto/trace/ps/process_tree.proto", ["ProcessTree"]),
    ("perfetto/trace/ps/process_stats.proto", ["ProcessStats"]),
    ("perfetto/trace/sys_stats/sys_stats.proto", ["SysStats"]),
    ("perfetto/trace/filesystem/inode_file_map.proto", ["InodeFileMap"]),
    ("perfetto/trace/power/power.proto",
     ["BatteryCounters", "PowerRails", "EntityStateResidency",
      "AndroidEnergyEstimationBreakdown", "AndroidEnergyConsumerDescriptor",
      "AndroidEnergyConsumer"]),
    ("perfetto/trace/android/android_log.proto", ["AndroidLogPacket"]),
    ("perfetto/trace/android/android_misc.proto",
     ["PackagesList", "InitialDisplayState", "AndroidSystemProperty", "AndroidAflags", "AndroidGameInterventionList",
      "GraphicsFrameEvent", "GpuMemTotalEvent"]),
    ("perfetto/trace/android/frame_timeline_event.proto",
     ["FrameTimelineEvent"]),
    ("perfetto/trace/android/android_input_event.proto",
     ["AndroidInputEvent", "AndroidMotionEvent", "AndroidKeyEvent",
      "AndroidWindowInputDispatchEvent"]),
    ("perfetto/trace/android/winscope_extensions.proto", ["WinscopeExtensions"]),
    ("perfetto/trace/android/inputmethodeditor.proto",
     ["InputMethodClientsTraceProto", "InputMethodServiceTraceProto",
      "InputMethodManagerServiceTraceProto", "InputMethodManagerServiceProto",
      "InputMethodServiceProto", "SoftInputWindowProto", "EditorInfoProto",
      "ImeFocusControllerProto", "ImeInsetsSourceConsumerProto",
      "InsetsSourceConsumerProto", "InsetsSourceControlProto",
      "SurfaceControlProto", "PointProto", "RectProto"]),
    ("perfetto/trace/system_info.proto",
     ["SystemInfo", "Utsname", "CpuInfo", "TraceUuid", "Trigger",
      "TracingServiceEvent"]),
    ("perfetto/trace/generic_kernel.proto",
     ["GenericKernelTaskStateEvent", "GenericKernelTaskRenameEvent",
      "GenericKernelCpuFrequencyEvent", "GenericKernelProcessTree"]),
    ("perfetto/trace/perfetto_metatrace.proto", ["PerfettoMetatrace"]),
    ("perfetto/trace/statsd_atom.proto", ["StatsdAtom", "Atom"]),
    ("perfetto/trace/track_event/debug_annotation.proto",
     ["DebugAnnotation", "DebugAnnotationName",
      "DebugAnnotationValueTypeName"]),
    ("perfetto/trace/test_event.proto", ["TestEvent"]),
    ("perfetto/trace/track_event/source_location.proto",
     ["SourceLocation", "UnsymbolizedSourceLocation"]),
    ("perfetto/trace/track_event/log_message.proto",
     ["LogMessage", "LogMessageBody"]),
    ("perfetto/trace/track_event/chrome_typed_events.proto",
     ["TaskExecution", "ChromeUserEvent", "ChromeKeyedService",
      "ChromeLegacyIpc", "ChromeHistogramSample", "HistogramName",
      "ChromeLatencyInfo", "ChromeMessagePump", "ChromeMojoEventInfo",
      "ChromeApplicationStateInfo", "ChromeRAILMode",
      "ChromeRendererSchedulerState", "ChromeWindowHandleEventInfo",
      "ChromeActiveProcesses", "Screenshot", "ChromeProcessDescriptor",
      "ChromeThreadDescriptor"]),
    ("perfetto/trace/track_event/track_descriptor.proto",
     ["TrackDescriptor", "ProcessDescriptor", "ThreadDescriptor",
      "CounterDescriptor", "StateDescriptor"]),
    ("perfetto/trace/track_event/track_event.proto",
     ["TrackEvent", "TrackEventDefaults", "EventCategory", "EventName",
      "TrackEventRangeOfInterest"]),
    ("perfetto/trace/interned_data.proto", ["InternedData", "AndroidJobName"]),
    ("perfetto/trace/extension_descriptor.proto", ["ExtensionDescriptor"]),
    ("perfetto/trace/trace.proto",
     ["Trace", "TracePacket", "TracePacketDefaults"]),
])

EXTERNAL_TYPES = {
    # Well-known protobuf types shipped with libprotobuf.
    "google.protobuf.FileDescriptorSet": "google/protobuf/descriptor.proto",
}


class Field(object):
    def __init__(self, num, name, typ, wire, label, meaning, src):
        self.num = num
        self.name = name
        self.typ = typ          # scalar name, message name or "enum X"
        self.wire = wire
        self.label = label
        self.meaning = meaning
        self.src = src

    def key(self):
        return (self.num, self.name, self.typ, self.is_repeated(),
                self.is_packed())

    def is_repeated(self):
        return self.label.startswith("repeated")

    def is_packed(self):
        return "packed" in self.wire or "packed" in self.label

    def is_deprecated(self):
        return "deprecated" in self.label

    def oneof(self):
        m = re.search(r"oneof\s+(\w+)", self.label)
        return m.group(1) if m else None


class Schema(object):
    def __init__(self):
        self.messages = collections.OrderedDict()  # full name -> [Field]
        self.enums = collections.OrderedDict()     # full name -> [(n, v)]
        self.omit = collections.OrderedDict()      # type -> reason
        self.docs = collections.defaultdict(list)  # message -> text lines
        self.errors = []

    def add_message(self, name, src):
        self.messages.setdefault(name, [])

    def add_field(self, msg, f):
        fields = self.messages.setdefault(msg, [])
        for g in fields:
            if g.num == f.num or g.name == f.name:
                if g.key() != f.key():
                    self.errors.append(
                        "%s: field clash %s #%d %s (%s) vs #%d %s (%s)" %
                        (msg, f.src, f.num, f.name, f.typ, g.num, g.name,
                         g.src))
                return
        fields.append(f)

    def add_enum_value(self, enum, name, value, src):
        vals = self.enums.setdefault(enum, [])
        for n, v in vals:
            if n == name or v == value:
                if (n, v) != (name, value):
                    self.errors.append("%s: enum clash %s=%d vs %s=%d (%s)" %
                                       (enum, name, value, n, v, src))
                return
        vals.append((name, value))


def strip_cell(c):
    c = c.strip()
    if c.startswith("`") and c.endswith("`"):
        c = c[1:-1]
    return c


def parse_markdown(text, schema, src):
    cur_msg = None
    cur_enum = None
    cur_omit = None
    in_table = False
    for lineno, line in enumerate(text.splitlines(), 1):
        where = "%s:%d" % (src, lineno)
        if line.startswith("#"):
            cur_msg = cur_enum = cur_omit = None
            in_table = False
            m = re.match(r"^####\s+enum\s+([\w.]+)", line)
            if m:
                cur_enum = m.group(1).lstrip(".")
                schema.enums.setdefault(cur_enum, [])
                continue
            m = re.match(r"^####\s+omit\s+([\w.]+)\s*$", line)
            if m:
                cur_omit = m.group(1)
                schema.omit[cur_omit] = ""
                continue
            m = re.match(r"^####\s+([A-Z][\w.]*)\s*$", line)
            if m:
                cur_msg = m.group(1).lstrip(".")
                schema.add_message(cur_msg, where)
            continue
        if cur_omit is not None:
            if line.strip():
                schema.omit[cur_omit] = (schema.omit[cur_omit] + " " +
                                         line.strip()).strip()
            continue
        if cur_enum is not None:
            if line.startswith("|"):
                cells = [strip_cell(c) for c in line.strip().strip("|")
                         .split("|")]
                # | value | enum | ... | (optionally two value/enum pairs)
                for i in range(0, len(cells) - 1, 2):
                    if re.match(r"^-?\d+$", cells[i]) and \
                            re.match(r"^[A-Z][A-Z0-9_]*$", cells[i + 1]):
                        schema.add_enum_value(cur_enum, cells[i + 1],
                                              int(cells[i]), where)
                    if len(cells) == 3:
                        break  # | value | enum | comment |
                continue
            pairs = re.findall(r"\b([A-Z][A-Z0-9_]*)=(-?\d+)", line)
            if pairs and re.match(r"^\s*[A-Z][A-Z0-9_]*=-?\d+", line):
                for n, v in pairs:
                    schema.add_enum_value(cur_enum, n, int(v), where)
            continue
        if cur_msg is not None and not in_table and line.strip() and \
                not line.startswith("|"):
            # Description paragraph between the heading and its table.
            schema.docs[cur_msg].append(line.strip())
            continue
        if cur_msg is not None and line.startswith("|"):
            in_table = True
            cells = [strip_cell(c) for c in line.strip().strip("|")
                     .split("|")]
            if len(cells) < 4 or not re.match(r"^\d+$", cells[0]):
                continue
            if len(cells) == 4:
                # Compact supplement row: | # | field | type | label |
                num, name, typ, label = cells
                meaning = ""
                wire = default_wire(typ.strip(), label)
            else:
                num, name, typ, wire, label = cells[:5]
                meaning = cells[5] if len(cells) > 5 else ""
            typ = typ.strip()
            if typ.startswith("enum "):
                typ = "enum " + typ[5:].strip().lstrip(".")
            else:
                typ = typ.lstrip(".")
            f = Field(int(num), name, typ, wire, label, meaning, where)
            check_wire(f, schema, where)
            schema.add_field(cur_msg, f)


def default_wire(typ, label):
    if "packed" in label:
        return "LEN (packed)"
    if typ in SCALARS:
        return WIRE_OF.get(typ, "VARINT")
    if typ.startswith("enum "):
        return "VARINT"
    return "LEN"


def check_wire(f, schema, where):
    t = f.typ
    if t in SCALARS:
        expect = WIRE_OF.get(t, "VARINT")
    elif t.startswith("enum "):
        expect = "VARINT"
    else:
        expect = "LEN"
    if f.is_packed():
        if not f.is_repeated():
            schema.errors.append("%s: packed but not repeated" % where)
        return
    if not f.wire.startswith(expect):
        schema.errors.append("%s: %s %s has wire %s, expected %s" %
                             (where, f.name, t, f.wire, expect))


# ----------------------------------------------------------------------------

def top_level(name):
    return name.split(".")[0]


def resolve(schema):
    """Returns {referenced type: [referrer]} of undefined, non-omitted types."""
    missing = collections.defaultdict(list)
    for msg, fields in schema.messages.items():
        for f in fields:
            if f.typ in SCALARS:
                continue
            if f.typ.startswith("enum "):
                t = f.typ[5:]
                if t not in schema.enums and t not in schema.omit:
                    missing["enum " + t].append("%s.%s" % (msg, f.name))
            else:
                t = f.typ
                if t not in schema.messages and t not in schema.omit and \
                        t not in EXTERNAL_TYPES:
                    missing[t].append("%s.%s" % (msg, f.name))
    # A nested type needs its parent to exist as a message.
    for name in list(schema.messages) + list(schema.enums):
        parts = name.split(".")
        for i in range(1, len(parts)):
            parent = ".".join(parts[:i])
            if parent not in schema.messages:
                # Implicit container message (e.g. Profiling for enums).
                schema.messages[parent] = []
    return missing


def assign_files(schema):
    owner = {}
    for fname, names in FILES.items():
        if names is None:
            continue
        for n in names:
            owner[n] = fname
    tops = collections.OrderedDict()
    for name in list(schema.messages) + list(schema.enums):
        t = top_level(name)
        if t in tops:
            continue
        if t in owner:
            tops[t] = owner[t]
        elif t.endswith("FtraceEvent"):
            tops[t] = "perfetto/trace/ftrace/ftrace.proto"
        else:
            schema.errors.append("no output file for top-level type %s" % t)
    for n in owner:
        if n not in tops:
            schema.errors.append("FILES lists %s, which is not defined" % n)
    return tops


def file_deps(schema, tops):
    deps = collections.defaultdict(set)
    for msg, fields in schema.messages.items():
        src = tops.get(top_level(msg))
        for f in fields:
            if f.typ in SCALARS or f.typ in schema.omit or \
                    f.typ[5:] in schema.omit:
                continue
            t = f.typ[5:] if f.typ.startswith("enum ") else f.typ
            if t in EXTERNAL_TYPES:
                deps[src].add(EXTERNAL_TYPES[t])
                continue
            dst = tops.get(top_level(t))
            if dst and dst != src:
                deps[src].add(dst)
    return deps


def find_cycle(deps):
    state = {}
    stack = []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for d in sorted(deps.get(n, ())):
            if state.get(d) == 1:
                return stack[stack.index(d):] + [d]
            if d not in state:
                c = visit(d)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None

    for n in list(deps):
        if n not in state:
            c = visit(n)
            if c:
                return c
    return None


# ----------------------------------------------------------------------------

def proto_type(f, schema):
    if f.typ in SCALARS:
        return f.typ
    t = f.typ[5:] if f.typ.startswith("enum ") else f.typ
    if t in EXTERNAL_TYPES:
        return "." + t
    return ".%s.%s" % (PACKAGE, t)


def is_omitted(f, schema):
    t = f.typ[5:] if f.typ.startswith("enum ") else f.typ
    return t in schema.omit


def comment(text, indent):
    text = " ".join(text.split())
    out = []
    line = ""
    for w in text.split(" "):
        if line and len(indent) + 3 + len(line) + 1 + len(w) > 79:
            out.append(indent + "// " + line)
            line = w
        else:
            line = (line + " " + w) if line else w
    if line:
        out.append(indent + "// " + line)
    return out


def emit_enum(name, schema, indent):
    short = name.split(".")[-1]
    out = ["%senum %s {" % (indent, short)]
    vals = sorted(schema.enums[name], key=lambda nv: nv[1])
    if not any(v == 0 for _, v in vals):
        pass  # proto2 allows enums without a zero value
    for n, v in vals:
        out.append("%s  %s = %d;" % (indent, n, v))
    out.append("%s}" % indent)
    return out


def emit_message(name, schema, indent):
    short = name.split(".")[-1]
    out = comment(" ".join(schema.docs.get(name, [])), indent) \
        if schema.docs.get(name) else []
    out.append("%smessage %s {" % (indent, short))
    inner = indent + "  "
    prefix = name + "."
    children = [m for m in schema.messages
                if m.startswith(prefix) and "." not in m[len(prefix):]]
    enums = [e for e in schema.enums
             if e.startswith(prefix) and "." not in e[len(prefix):]]
    for e in enums:
        out += emit_enum(e, schema, inner)
    for c in children:
        out += emit_message(c, schema, inner)
    fields = sorted(schema.messages[name], key=lambda f: f.num)
    for f in fields:
        if f.meaning:
            out += comment(f.meaning, inner)
        label = "repeated" if f.is_repeated() else "optional"
        opts = []
        if f.is_packed():
            opts.append("packed = true")
        if f.is_deprecated():
            opts.append("deprecated = true")
        oneof = f.oneof()
        decl = "%s %s %s = %d%s;%s" % (
            label, proto_type(f, schema), f.name, f.num,
            (" [" + ", ".join(opts) + "]") if opts else "",
            ("  // oneof " + oneof) if oneof else "")
        if is_omitted(f, schema):
            t = f.typ[5:] if f.typ.startswith("enum ") else f.typ
            out += comment("OMITTED (type %s not in this subset: %s)" %
                           (f.typ, schema.omit[t]), inner)
            out.append("%s// %s" % (inner, decl))
        else:
            out.append(inner + decl)
    out.append("%s}" % indent)
    return out


HEADER = """\
// Generated by protos/tools/spec_to_proto.py from
// perfetto-wire-format.md and protos/tools/supplement.md. DO NOT EDIT:
// change the inputs and re-run the script.
//
// A subset of Perfetto's trace/config schema (proto2). Field numbers and
// types are those of upstream Perfetto (github.com/google/perfetto); members
// of upstream oneofs are written as plain optional fields (same wire form).
"""


def emit_files(schema, tops, deps, outdir):
    written = []
    by_file = collections.defaultdict(list)
    for t, fname in tops.items():
        by_file[fname].append(t)
    for fname in FILES:
        if fname not in by_file:
            continue
        lines = [HEADER, 'syntax = "proto2";', ""]
        lines.append("package %s;" % PACKAGE)
        lines.append("")
        imps = sorted(deps.get(fname, ()))
        for i in imps:
            lines.append('import "%s";' % i)
        if imps:
            lines.append("")
        # Keep the order of FILES for listed names, else sorted.
        order = FILES[fname] or sorted(by_file[fname])
        for t in order:
            if t not in by_file[fname]:
                continue
            if t in schema.enums and t not in schema.messages:
                lines += emit_enum(t, schema, "")
            else:
                lines += emit_message(t, schema, "")
            lines.append("")
        path = os.path.join(outdir, fname)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        text = "\n".join(lines).rstrip("\n") + "\n"
        with open(path, "w") as fh:
            fh.write(text)
        written.append(fname)
    return written


def main():
    tools_dir = os.path.dirname(os.path.abspath(__file__))
    protos_dir = os.path.dirname(tools_dir)
    repo_dir = os.path.dirname(protos_dir)
    ap = argparse.ArgumentParser()
    ap.add_argument("--spec", default=os.path.join(
        repo_dir, "..", "shared", "spec", "perfetto-wire-format.md"))
    ap.add_argument("--supplement",
                    default=os.path.join(tools_dir, "supplement.md"))
    ap.add_argument("--out", default=protos_dir)
    ap.add_argument("--check", action="store_true",
                    help="generate into a temp dir and compare with --out")
    args = ap.parse_args()

    schema = Schema()
    with open(args.spec) as fh:
        parse_markdown(fh.read(), schema, os.path.basename(args.spec))
    if args.supplement:
        with open(args.supplement) as fh:
            parse_markdown(fh.read(), schema,
                           os.path.basename(args.supplement))
    for e, vals in schema.enums.items():
        if not vals:
            schema.errors.append("enum %s has no values" % e)
    missing = resolve(schema)
    if missing:
        for t in sorted(missing):
            schema.errors.append("undefined type %s used by %s" %
                                 (t, ", ".join(missing[t])))
    tops = assign_files(schema)
    deps = file_deps(schema, tops)
    cyc = find_cycle(deps)
    if cyc:
        schema.errors.append("import cycle: " + " -> ".join(cyc))
    if schema.errors:
        for e in schema.errors:
            print("error: " + e, file=sys.stderr)
        return 1
    if args.check:
        import filecmp
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            written = emit_files(schema, tops, deps, tmp)
            stale = [f for f in written if not os.path.exists(
                os.path.join(args.out, f)) or not filecmp.cmp(
                    os.path.join(tmp, f), os.path.join(args.out, f),
                    shallow=False)]
        for f in stale:
            print("out of date: " + f, file=sys.stderr)
        if stale:
            return 1
        print("%d generated files are up to date" % len(written))
        return 0
    written = emit_files(schema, tops, deps, args.out)
    nfields = sum(len(v) for v in schema.messages.values())
    nvals = sum(len(v) for v in schema.enums.values())
    print("wrote %d files: %d messages, %d fields, %d enums, %d enum values, "
          "%d omitted types" % (len(written), len(schema.messages), nfields,
                                len(schema.enums), nvals, len(schema.omit)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
