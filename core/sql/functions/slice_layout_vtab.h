// experimental_slice_layout(filter_track_ids): upstream Perfetto's table
// function giving each slice of the listed tracks ('1,2,3') a layout_depth
// (see slice_layout.h). Columns: id, layout_depth.
#pragma once

#include <sqlite3.h>

#include "base/status.h"
#include "core/storage/trace_storage.h"

namespace fathom {

Status RegisterSliceLayoutFunction(sqlite3* db, TraceStorage* storage);

}  // namespace fathom
