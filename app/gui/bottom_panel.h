// The tabbed panel under the timeline (Details, Flamegraph, Logs), as the Perfetto
// UI's bottom panel. It collapses to its tab bar (a click on the current tab, the
// chevron, or Ctrl+J), is resized freely by the splitter above it, and remembers
// its height and the user's collapsed choice in QSettings.
#pragma once

#include <QTabWidget>

class QSplitter;
class QToolButton;

namespace fathom::gui {

class BottomPanel : public QTabWidget {
  Q_OBJECT
 public:
  explicit BottomPanel(QWidget* parent = nullptr);
  // The splitter that holds the panel as its last widget (sizes are set through it).
  void attach(QSplitter* split);

  bool isCollapsed() const { return collapsed_; }
  // remember: a user's choice, kept for the next trace (an automatic collapse is not).
  void setCollapsed(bool collapsed, bool remember = true);
  void toggle() { setCollapsed(!collapsed_); }
  // Shows tab `w`, expanding the panel when it is collapsed.
  void reveal(QWidget* w);
  // Unfolds the panel at height `h` (not remembered: the user's own height stays the default).
  void expandTo(int h);
  // The height of the panel when collapsed: its tab bar.
  int collapsedHeight() const;
  static bool rememberedCollapsed();

 signals:
  void collapsedChanged(bool collapsed);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void onSplitterMoved();
  void applySizes();

  QSplitter* split_ = nullptr;
  QToolButton* chevron_ = nullptr;
  bool collapsed_ = false;
  int expanded_height_ = -1;  // -1: not sized by the user yet
};

}  // namespace fathom::gui
