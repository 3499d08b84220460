#include "ui/panels/sparsifier_panel.h"

#include "core/sparsify/sparsifier_methods.h"
#include "core/util/errors.h"
#include "ui/document/tensor_document.h"
#include "ui/models/sparsify_report_model.h"
#include "ui/panels/sparsifier_parameter_field.h"
#include "ui/views/schedule_chart.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <iterator>

namespace sparsity::ui {
namespace {

using core::SparsifierMethod;

// Edits of the same field join one undo step: the method is field -1, a parameter its index
// in the parameter table.
constexpr int kMethodField = -1;

QSpinBox *countBox(const QString &name, int minimum, int maximum)
{
    auto *box = new QSpinBox;
    box->setObjectName(name);
    box->setRange(minimum, maximum);
    return box;
}

} // namespace

SparsifierPanel::SparsifierPanel(TensorDocument *document, QWidget *parent) : QWidget(parent), m_document(document)
{
    m_scope = new QComboBox;
    m_scope->setObjectName(QStringLiteral("sparsifier.scope"));
    m_scope->addItems({tr("every dataset"), tr("this dataset only")});
    m_scope->setToolTip(tr("A dataset's own recipe overrides the shared one on Export and in Save as batch "
                           "(BATCH.json's sparsify.per_dataset)"));
    m_ownRecipes = new QLabel;
    m_ownRecipes->setObjectName(QStringLiteral("sparsifier.own_recipes"));
    m_ownRecipes->setWordWrap(true);
    m_method = new QComboBox;
    m_method->setObjectName(QStringLiteral("sparsifier.method"));
    m_method->addItem(tr("(none)"));
    for (const auto &facts : core::kSparsifierMethods) // in the table's order: its index + 1
        m_method->addItem(QString::fromUtf8(facts.name));
    m_pages = new QStackedWidget;
    for (const auto &facts : core::kSparsifierMethods)
        m_pages->addWidget(methodPage(facts.method));

    m_status = new QLabel;
    m_status->setObjectName(QStringLiteral("sparsifier.status"));
    m_status->setWordWrap(true);
    // Room for the longest status (a window's preview with its note): the buttons below do not
    // jump when a note comes and goes.
    m_status->setMinimumHeight(3 * m_status->fontMetrics().lineSpacing());
    m_apply = new QPushButton(tr("&Apply"));
    m_apply->setObjectName(QStringLiteral("sparsifier.apply"));
    m_apply->setToolTip(tr("Prune the loaded values (undoable); Export runs the same recipe on the whole file"));
    auto *clear = new QPushButton(tr("Clear"));
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(clear);
    buttons->addStretch();
    buttons->addWidget(m_apply);

    m_report = new SparsifyReportModel(document, this);
    m_reportView = new QTableView;
    m_reportView->setObjectName(QStringLiteral("sparsifier.report"));
    m_reportView->setModel(m_report);
    m_reportView->verticalHeader()->hide();
    m_reportView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_reportView->setMinimumHeight(90);

    auto *form = new QFormLayout;
    // The recipe's scope, not Apply's: Apply prunes the shown tensor whichever recipe it uses.
    form->addRow(tr("Recipe for"), m_scope);
    form->addRow(tr("Method"), m_method);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_ownRecipes);
    layout->addWidget(m_pages);
    layout->addWidget(m_status);
    layout->addLayout(buttons);
    layout->addWidget(scheduleBox());
    layout->addWidget(new QLabel(tr("Applied")));
    layout->addWidget(m_reportView, 1);

    connect(m_scope, &QComboBox::currentIndexChanged, this, [this](int index) { m_document->changeOwnSparsifier(index == 1); });
    connect(m_method, &QComboBox::currentIndexChanged, this, [this] { edited(kMethodField); });
    connect(clear, &QPushButton::clicked, this, [this] { m_document->changeSparsifier(std::nullopt); });
    connect(m_apply, &QPushButton::clicked, this, [this] { m_document->applySparsifier(); });
    connect(document, &TensorDocument::sparsifierChanged, this, &SparsifierPanel::showDocument);
    connect(document, &TensorDocument::tensorChanged, this, &SparsifierPanel::showDocument);
    showDocument();
    updateSchedule();
}

QWidget *SparsifierPanel::recipeFields() const { return m_pages; }

QWidget *SparsifierPanel::methodPage(core::SparsifierMethod method)
{
    auto *page = new QWidget;
    auto *form = new QFormLayout(page);
    form->setContentsMargins(0, 0, 0, 0);
    const auto parameters = core::sparsifierParameters();
    for (std::size_t index = 0; index < parameters.size(); ++index) {
        const auto &parameter = parameters[index];
        if (parameter.method != method)
            continue;
        auto *field = new SparsifierParameterField(parameter);
        field->showValue(parameter.get(core::SparsifierConfig{})); // its default
        connect(field, &SparsifierParameterField::edited, this, [this, index] { edited(static_cast<int>(index)); });
        form->addRow(QString::fromUtf8(parameter.label), field);
        m_fields.push_back(field);
    }
    return page;
}

QWidget *SparsifierPanel::scheduleBox()
{
    auto *box = new QGroupBox(tr("Schedule"));
    m_schedule = new QLineEdit(QStringLiteral("cubic:0,0.8,0,1,20"));
    m_schedule->setObjectName(QStringLiteral("sparsifier.schedule"));
    m_schedule->setToolTip(
        tr("cubic:S0,SF,T0,DT,N[,zero] | linear:S0,SF,T0,T1 | list:L0,L1,... (as sparsity sparsify --schedule)"));
    m_scheduleSteps = countBox(QStringLiteral("sparsifier.schedule_steps"), 1, 100000);
    m_scheduleSteps->setValue(25);
    m_atStep = countBox(QStringLiteral("sparsifier.at_step"), 0, 100000);
    m_atStep->setValue(10);
    m_scheduleChart = new ScheduleChart;
    m_scheduleStatus = new QLabel;
    m_useLevel = new QPushButton(tr("Use level"));
    m_useLevel->setObjectName(QStringLiteral("sparsifier.use_level"));
    m_useLevel->setToolTip(tr("data-norm: the sparsity level; row-norm: keep 1 − level (as --schedule --at-step)"));
    auto *steps = new QHBoxLayout;
    steps->addWidget(new QLabel(tr("steps")));
    steps->addWidget(m_scheduleSteps);
    steps->addWidget(new QLabel(tr("at step")));
    steps->addWidget(m_atStep);
    steps->addWidget(m_useLevel);
    auto *layout = new QVBoxLayout(box);
    layout->addWidget(m_schedule);
    layout->addLayout(steps);
    layout->addWidget(m_scheduleStatus);
    layout->addWidget(m_scheduleChart);
    connect(m_schedule, &QLineEdit::textChanged, this, &SparsifierPanel::updateSchedule);
    connect(m_scheduleSteps, &QSpinBox::valueChanged, this, &SparsifierPanel::updateSchedule);
    connect(m_atStep, &QSpinBox::valueChanged, this, &SparsifierPanel::updateSchedule);
    connect(m_useLevel, &QPushButton::clicked, this, &SparsifierPanel::useScheduleLevel);
    return box;
}

void SparsifierPanel::edited(int field)
{
    if (field != m_lastField) {
        m_lastField = field;
        m_gesture = m_document->newGesture();
    }
    const int methodIndex = m_method->currentIndex() - 1;
    if (methodIndex < 0) {
        if (m_document->sparsifier())
            m_document->changeSparsifier(std::nullopt);
        return;
    }
    core::SparsifierConfig config;
    try {
        config = recipeOfFields(core::kSparsifierMethods[methodIndex].method);
        config.validate();
    } catch (const core::Error &error) {
        // Not a recipe: say why and leave the document as it is.
        m_status->setStyleSheet(QStringLiteral("color: #b00020"));
        m_status->setText(QString::fromStdString(error.what()));
        return;
    }
    m_document->changeSparsifier(config, field == kMethodField ? -1 : m_gesture);
}

void SparsifierPanel::showDocument()
{
    const auto config = m_document->sparsifier().value_or(core::SparsifierConfig{});
    const QSignalBlocker blockers[] = {QSignalBlocker(m_scope), QSignalBlocker(m_method)};
    int methodIndex = 0;
    if (m_document->sparsifier())
        for (int i = 0; i < static_cast<int>(std::size(core::kSparsifierMethods)); ++i)
            if (core::kSparsifierMethods[i].method == config.method)
                methodIndex = i + 1;
    const QString dataset = m_document->source().elementPath;
    m_scope->setItemText(1, dataset.isEmpty() ? tr("this dataset only") : tr("%1 only").arg(dataset));
    m_scope->setCurrentIndex(m_document->hasOwnSparsifier() ? 1 : 0);
    m_scope->setEnabled(!dataset.isEmpty());
    QStringList own;
    for (const auto &[path, recipe] : m_document->datasetSparsifiers())
        own << QStringLiteral("%1: %2").arg(path, describeSparsifier(recipe));
    m_ownRecipes->setText(own.isEmpty() ? QString() : tr("Own recipes — %1").arg(own.join(QStringLiteral("; "))));
    m_ownRecipes->setVisible(!own.isEmpty());
    m_method->setCurrentIndex(methodIndex);
    m_pages->setCurrentIndex(std::max(methodIndex - 1, 0));
    // A stacked widget is as tall as its tallest page unless the hidden pages are ignored.
    for (int page = 0; page < m_pages->count(); ++page)
        m_pages->widget(page)->setSizePolicy(QSizePolicy::Preferred,
                                             page == m_pages->currentIndex() ? QSizePolicy::Preferred : QSizePolicy::Ignored);
    // The layout takes the new hint; adjustSize() set the pages to their hint's width instead,
    // and the fields stayed that narrow until something else laid the panel out again.
    m_pages->updateGeometry();
    m_pages->setEnabled(methodIndex > 0);
    // The recipe's method's fields show its values; another method's keep theirs, so switching
    // methods and back finds them as they were. No recipe (Clear): every field its default.
    for (auto *field : m_fields)
        if (!m_document->sparsifier() || field->parameter().method == config.method)
            field->showValue(field->parameter().get(config));
    m_useLevel->setEnabled(methodIndex > 0 && core::kSparsifierMethods[methodIndex - 1].level != core::LevelRule::None);

    const bool error = !m_document->previewError().isEmpty();
    m_status->setStyleSheet(error ? QStringLiteral("color: #b00020") : QString());
    if (!m_document->sparsifier())
        m_status->setText(tr("Choose a method, or drag on the histogram for a threshold."));
    else if (error)
        m_status->setText(m_document->previewError());
    else if (!m_document->hasTensor())
        m_status->setText(tr("Select a tensor to preview the recipe."));
    else if (const auto rows = m_document->coverage(); rows.isEmpty())
        m_status->setText(tr("→ %1% pruned").arg(100.0 * m_document->prunedFraction(), 0, 'f', 1));
    else if (const auto &note = m_document->previewScopeNote(); note.isEmpty())
        m_status->setText(tr("→ %1% pruned of the loaded %2").arg(100.0 * m_document->prunedFraction(), 0, 'f', 1).arg(rows));
    else
        m_status->setText(
            tr("→ %1% pruned of the loaded %2 (%3)").arg(100.0 * m_document->prunedFraction(), 0, 'f', 1).arg(rows, note));
    m_apply->setEnabled(m_document->hasPreview());
}

void SparsifierPanel::updateSchedule()
{
    try {
        const double level = m_scheduleChart->setSchedule(m_schedule->text(), m_scheduleSteps->value(), m_atStep->value());
        m_scheduleStatus->setStyleSheet({});
        m_scheduleStatus->setText(tr("level at step %1: %2").arg(m_atStep->value()).arg(level, 0, 'g', 4));
    } catch (const core::Error &error) {
        m_scheduleStatus->setStyleSheet(QStringLiteral("color: #b00020"));
        m_scheduleStatus->setText(QString::fromStdString(error.what()));
    }
}

void SparsifierPanel::useScheduleLevel()
{
    double level = 0.0;
    try {
        level = m_scheduleChart->setSchedule(m_schedule->text(), m_scheduleSteps->value(), m_atStep->value());
    } catch (const core::Error &) {
        return; // the status line already says why
    }
    const int methodIndex = m_method->currentIndex() - 1; // after "(none)"
    if (methodIndex < 0)
        return;
    core::SparsifierConfig config;
    try {
        config = recipeOfFields(core::kSparsifierMethods[methodIndex].method);
    } catch (const core::Error &) {
        return; // the status line says why
    }
    if (!core::applyScheduleLevel(config, level))
        return;
    // Through the fields, as if typed: an edit of the field the level sets, where what it shows
    // changes (a spin box rounds the level to its decimals).
    for (auto *field : m_fields) {
        if (field->parameter().method != config.method)
            continue;
        const auto before = field->value();
        field->showValue(field->parameter().get(config));
        if (field->value() != before)
            emit field->edited();
    }
}

core::SparsifierConfig SparsifierPanel::recipeOfFields(core::SparsifierMethod method) const
{
    core::SparsifierConfig config;
    config.method = method;
    for (const auto *field : m_fields)
        if (field->parameter().method == method)
            if (const auto value = field->value())
                field->parameter().set(config, *value);
    return config;
}

} // namespace sparsity::ui
