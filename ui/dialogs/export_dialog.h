#pragma once
// ExportDialog: which datasets of the open file the recipe runs on (each shown with the
// sparsifier it gets: its own or the shared one), the output layout, the gzip level and the
// output file. It edits a copy of the document's ExportSettings; the main window commits them
// (undoable) and starts the export job.
#include "ui/document/tensor_document.h"

#include <QDialog>
#include <QMap>

class QComboBox;
class QLabel;
class QPushButton;
class QLineEdit;
class QListWidget;
class QSpinBox;

namespace sparsity::ui {

class ExportDialog : public QDialog {
    Q_OBJECT

public:
    // `datasets`: every numeric element of the file; `misfits`: those the recipe in effect
    // for them cannot run on, with why (recipeMisfit); `suggestedOutput`: the initial file
    // name. A dataset that does not fit starts unticked; ticked, or with nothing ticked,
    // Export is refused in the dialog with the reason.
    ExportDialog(const QStringList &datasets,
                 const QMap<QString, QString> &misfits,
                 const TensorDocument &document,
                 const QString &suggestedOutput,
                 QWidget *parent = nullptr);

    // All checked: an empty list (every numeric dataset, as the CLI's default).
    ExportSettings settings() const;
    QString outputPath() const;
    // Why Export is refused as ticked; empty when it can run.
    QString problem() const;
    // Export: an output file that exists is replaced only when the user says so (the one the
    // Browse… dialog chose was asked about there).
    void accept() override;

private:
    void checkTicked();

    QMap<QString, QString> m_misfits;
    QLabel *m_problem;
    QPushButton *m_export;
    QListWidget *m_datasets;
    QComboBox *m_layout;
    QSpinBox *m_gzip;
    QLineEdit *m_output;
    QString m_replaceConfirmed; // the file the Browse… dialog already asked to replace
};

} // namespace sparsity::ui
