#pragma once
// JobsWidget: the status-bar face of a JobRunner — the job's title, a progress bar and
// Cancel, shown only while a job runs.
#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;

namespace sparsity::ui {

class JobRunner;

class JobsWidget : public QWidget {
    Q_OBJECT

public:
    explicit JobsWidget(JobRunner *runner, QWidget *parent = nullptr);

private:
    QLabel *m_title;
    QProgressBar *m_bar;
    QPushButton *m_cancel;
};

} // namespace sparsity::ui
