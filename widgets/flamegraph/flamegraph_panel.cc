#include "widgets/flamegraph/flamegraph_panel.h"

namespace fathom::gui {

FlamegraphPanel::FlamegraphPanel(TraceSession* session, QWidget* parent) : QWidget(parent) {}

void FlamegraphPanel::showHeapProfile(qint64, qint64, const QString&) {}
void FlamegraphPanel::showCpuSamples(qint64, qint64, const QList<int>&) {}
}  // namespace fathom::gui
