#include "ui/dialogs/export_dialog.h"

#include <QColor>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>

namespace sparsity::ui {

namespace {

QString recipeOf(const TensorDocument &document, const QString &dataset)
{
    const auto config = document.sparsifierFor(dataset);
    if (!config)
        return QObject::tr("no sparsifier");
    const bool own = document.datasetSparsifiers().count(dataset) > 0;
    return own ? QObject::tr("%1 (own)").arg(describeSparsifier(*config)) : describeSparsifier(*config);
}

} // namespace

ExportDialog::ExportDialog(const QStringList &datasets,
                           const QMap<QString, QString> &misfits,
                           const TensorDocument &document,
                           const QString &suggestedOutput,
                           QWidget *parent)
    : QDialog(parent), m_misfits(misfits), m_problem(new QLabel), m_datasets(new QListWidget), m_layout(new QComboBox),
      m_gzip(new QSpinBox), m_output(new QLineEdit)
{
    setWindowTitle(tr("Export sparsified datasets"));
    const auto &settings = document.exportSettings();
    for (const auto &dataset : datasets) {
        const bool fits = !misfits.contains(dataset);
        auto *item = new QListWidgetItem(
            QStringLiteral("%1  —  %2%3")
                .arg(dataset, recipeOf(document, dataset), fits ? QString() : tr("  —  does not fit: %1").arg(misfits[dataset])),
            m_datasets);
        item->setData(Qt::UserRole, dataset);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        if (!fits)
            item->setForeground(QColor(0xb0, 0x00, 0x20));
        const bool all = settings.datasets.isEmpty();
        item->setCheckState((all && fits) || settings.datasets.contains(dataset) ? Qt::Checked : Qt::Unchecked);
    }
    m_datasets->setObjectName(QStringLiteral("export.datasets"));
    m_problem->setObjectName(QStringLiteral("export.problem"));
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("color: #b00020"));
    m_layout->addItems({QStringLiteral("dense"), QStringLiteral("masked"), QStringLiteral("coo"), QStringLiteral("csr"),
                        QStringLiteral("csc"), QStringLiteral("row_sparse")});
    m_layout->setCurrentText(settings.layout);
    m_gzip->setRange(0, 9);
    m_gzip->setSpecialValueText(tr("none"));
    m_gzip->setValue(settings.gzipLevel);
    m_output->setObjectName(QStringLiteral("export.output"));
    m_output->setText(suggestedOutput);
    auto *browse = new QPushButton(tr("Browse…"));
    connect(browse, &QPushButton::clicked, this, [this] {
        const auto path = QFileDialog::getSaveFileName(this, tr("Export to"), m_output->text(), tr("HDF5 files (*.h5)"));
        if (!path.isEmpty()) {
            m_output->setText(path);
            m_replaceConfirmed = path;
        }
    });
    auto *output = new QHBoxLayout;
    output->addWidget(m_output);
    output->addWidget(browse);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    m_export = buttons->button(QDialogButtonBox::Ok);
    m_export->setText(tr("Export"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *form = new QFormLayout(this);
    form->addRow(tr("Datasets"), m_datasets);
    form->addRow(tr("Layout"), m_layout);
    form->addRow(tr("gzip level"), m_gzip);
    form->addRow(tr("Output file"), output);
    form->addRow(m_problem);
    form->addRow(buttons);
    connect(m_datasets, &QListWidget::itemChanged, this, &ExportDialog::checkTicked);
    checkTicked();
}

QString ExportDialog::problem() const { return m_problem->text(); }

void ExportDialog::checkTicked()
{
    QStringList problems;
    int ticked = 0;
    for (int row = 0; row < m_datasets->count(); ++row) {
        if (m_datasets->item(row)->checkState() != Qt::Checked)
            continue;
        ++ticked;
        const auto dataset = m_datasets->item(row)->data(Qt::UserRole).toString();
        if (m_misfits.contains(dataset))
            problems << tr("%1: the recipe does not fit it: %2").arg(dataset, m_misfits[dataset]);
    }
    if (ticked == 0)
        problems << tr("Tick at least one dataset to export.");
    m_problem->setText(problems.join(QLatin1Char('\n')));
    m_problem->setVisible(!problems.isEmpty());
    m_export->setEnabled(problems.isEmpty());
}

ExportSettings ExportDialog::settings() const
{
    ExportSettings settings;
    bool all = true;
    for (int row = 0; row < m_datasets->count(); ++row) {
        if (m_datasets->item(row)->checkState() == Qt::Checked)
            settings.datasets << m_datasets->item(row)->data(Qt::UserRole).toString();
        else
            all = false;
    }
    if (all)
        settings.datasets.clear();
    settings.layout = m_layout->currentText();
    settings.gzipLevel = m_gzip->value();
    return settings;
}

QString ExportDialog::outputPath() const { return m_output->text(); }

void ExportDialog::accept()
{
    // The name offered is where the last export went, so Export pressed again replaced that
    // file without a word.
    const QString path = outputPath();
    if (QFileInfo::exists(path) && path != m_replaceConfirmed) {
        QMessageBox box(QMessageBox::Warning, tr("Replace file"), tr("%1 already exists.").arg(path),
                        QMessageBox::Yes | QMessageBox::No, this);
        box.setObjectName(QStringLiteral("export.replace"));
        box.setInformativeText(tr("Replace it with this export?"));
        box.button(QMessageBox::Yes)->setText(tr("Replace"));
        box.setDefaultButton(QMessageBox::No);
        if (box.exec() != QMessageBox::Yes)
            return;
    }
    QDialog::accept();
}

} // namespace sparsity::ui
