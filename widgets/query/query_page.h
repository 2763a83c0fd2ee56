// PLACEHOLDER: replaced by the widget's real implementation.
#pragma once

#include <QWidget>

#include "widgets/common/trace_session.h"

namespace fathom::gui {

class QueryPage : public QWidget {
  Q_OBJECT
 public:
  explicit QueryPage(TraceSession* session, QWidget* parent = nullptr);
  void setQuery(const QString& sql);
  void runQuery();
};

}  // namespace fathom::gui
