#include "ui/jobs/jobs_widget.h"

#include "ui/jobs/job_runner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

namespace sparsity::ui {

JobsWidget::JobsWidget(JobRunner *runner, QWidget *parent)
    : QWidget(parent), m_title(new QLabel), m_bar(new QProgressBar), m_cancel(new QPushButton(tr("Cancel")))
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_title);
    layout->addWidget(m_bar);
    layout->addWidget(m_cancel);
    m_bar->setMaximumWidth(200);
    m_cancel->setObjectName(QStringLiteral("jobs.cancel"));
    hide();
    connect(m_cancel, &QPushButton::clicked, runner, &JobRunner::cancel);
    connect(runner, &JobRunner::started, this, [this](const QString &title) {
        m_title->setText(tr("Jobs: %1").arg(title));
        m_bar->setRange(0, 0); // busy until the first report
        show();
    });
    connect(runner, &JobRunner::progressed, this, [this](qint64 done, qint64 total) {
        m_bar->setRange(0, 1000);
        m_bar->setValue(total > 0 ? static_cast<int>(1000 * done / total) : 0);
    });
    connect(runner, &JobRunner::finished, this, &QWidget::hide);
}

} // namespace sparsity::ui
