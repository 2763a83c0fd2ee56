#include "widgets/query/query_page.h"

namespace fathom::gui {

QueryPage::QueryPage(TraceSession* session, QWidget* parent) : QWidget(parent) {}

void QueryPage::setQuery(const QString&) {}
void QueryPage::runQuery() {}
}  // namespace fathom::gui
