#include "app/gui/welcome_page.h"

#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include "widgets/common/resource_icon.h"

namespace fathom::gui {

WelcomePage::WelcomePage(QWidget* parent) : QWidget(parent) {
  auto* title =
      new QLabel(tr("<h1>Fathom</h1><p>Open a trace: Perfetto protobuf (plain, gzip or "
                    "zstd), Chrome JSON, ftrace/atrace text or a systrace HTML page. "
                    "Or drop one anywhere on this window.</p>"));
  title->setWordWrap(true);
  auto* open = new QPushButton(resourceIcon("open"), tr("&Open trace…"));
  record_ = new QPushButton(resourceIcon("record"), tr("&Record…"));
  record_->setToolTip(tr("Record a new trace from a device or this computer"));
  open->setMinimumHeight(36);
  record_->setMinimumHeight(36);
  connect(open, &QPushButton::clicked, this, &WelcomePage::openRequested);
  connect(record_, &QPushButton::clicked, this, &WelcomePage::recordRequested);

  recent_ = new QListWidget;
  recent_->setObjectName(QStringLiteral("recentFiles"));
  connect(recent_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
    emit recentFileActivated(item->data(Qt::UserRole).toString());
  });

  auto* buttons = new QHBoxLayout;
  buttons->addWidget(open);
  buttons->addWidget(record_);
  buttons->addStretch();

  auto* column = new QVBoxLayout;
  column->addWidget(title);
  column->addLayout(buttons);
  column->addSpacing(12);
  column->addWidget(new QLabel(tr("<b>Recent traces</b>")));
  column->addWidget(recent_, 1);

  auto* outer = new QHBoxLayout(this);
  outer->addStretch(1);
  outer->addLayout(column, 3);
  outer->addStretch(1);
}

void WelcomePage::setRecentFiles(const QStringList& paths) {
  recent_->clear();
  for (const QString& path : paths) {
    QFileInfo info(path);
    auto* item =
        new QListWidgetItem(info.fileName() + QStringLiteral("  —  ") + info.absolutePath());
    item->setData(Qt::UserRole, path);
    item->setToolTip(path);
    if (!info.exists()) item->setForeground(palette().color(QPalette::Disabled, QPalette::Text));
    recent_->addItem(item);
  }
}

}  // namespace fathom::gui
