#include "ui/panels/optimizer_panel.h"

#include "core/util/errors.h"
#include "ui/document/tensor_document.h"
#include "ui/models/divergence_model.h"
#include "ui/panels/scroll_wheel_guard.h"
#include "ui/views/matrix_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QDoubleValidator>
#include <QEvent>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

namespace sparsity::ui {
namespace {

// What a view entry shows: a result's tensor, its row staleness, or its difference from the
// first semantics' tensor.
enum class ViewKind { Tensor, Staleness, Difference };

QVariant viewKey(std::size_t result, ViewKind kind, std::size_t tensor)
{
    return QVariantList{QVariant::fromValue(result), static_cast<int>(kind), QVariant::fromValue(tensor)};
}

QString semanticsText(core::Semantics s) { return QString::fromUtf8(core::semanticsName(s).data()); }

QDoubleSpinBox *hyperparameterBox(const QString &name, double value)
{
    auto *box = new QDoubleSpinBox;
    box->setObjectName(name);
    box->setDecimals(5);
    box->setRange(0.0, 1000.0);
    box->setSingleStep(0.01);
    box->setValue(value);
    return box;
}

// A hyperparameter whose empty field means the rule's default (shown as its placeholder), in C
// notation (1e-08) whatever the locale.
QLineEdit *defaultableField(const QString &name)
{
    auto *field = new QLineEdit;
    field->setObjectName(name);
    auto *validator = new QDoubleValidator(field);
    validator->setLocale(QLocale::c());
    field->setValidator(validator);
    return field;
}

// The field's number; unset when it is empty. Text that is not a number yet ("1e") is NaN,
// which the run refuses by name rather than quietly taking the default.
std::optional<double> numberIn(const QLineEdit *field)
{
    const auto text = field->text().trimmed();
    if (text.isEmpty())
        return std::nullopt;
    bool ok = false;
    const double value = QLocale::c().toDouble(text, &ok);
    return ok ? value : std::numeric_limits<double>::quiet_NaN();
}

QString fieldText(std::optional<double> value) { return value ? QLocale::c().toString(*value, 'g', 10) : QString(); }

} // namespace

OptimizerPanel::OptimizerPanel(TensorDocument *document, QWidget *parent) : QWidget(parent), m_document(document)
{
    m_optimizer = new QComboBox;
    m_optimizer->setObjectName(QStringLiteral("optimizer.kind"));
    m_optimizer->addItems({QStringLiteral("adagrad"), QStringLiteral("adam"), QStringLiteral("sgd")});
    m_rule = new QComboBox;
    m_rule->setObjectName(QStringLiteral("optimizer.rule"));
    m_rule->addItems({QStringLiteral("torch"), QStringLiteral("mxnet")});
    // The device choice lives in the main window's toolbar (deviceChooser()), which takes
    // ownership; a panel on its own deletes it.
    m_device = new QComboBox;
    m_device->setToolTip(tr("Device the Optimizer runs on"));
    m_device->setObjectName(QStringLiteral("optimizer.device"));
    m_device->addItem(QStringLiteral("cpu"));
    // CUDA is offered only where a device is present (core::deviceStatus probes once).
    if (core::cudaAvailable())
        m_device->addItem(QStringLiteral("cuda"));
    m_lr = hyperparameterBox(QStringLiteral("optimizer.lr"), 0.1);
    m_weightDecay = hyperparameterBox(QStringLiteral("optimizer.weight_decay"), 0.0);
    m_momentum = hyperparameterBox(QStringLiteral("optimizer.momentum"), 0.0);
    m_beta1 = defaultableField(QStringLiteral("optimizer.beta1"));
    m_beta2 = defaultableField(QStringLiteral("optimizer.beta2"));
    m_eps = defaultableField(QStringLiteral("optimizer.eps"));
    m_dense = new QCheckBox(tr("dense"));
    m_lazy = new QCheckBox(tr("lazy"));
    m_masked = new QCheckBox(tr("masked"));
    for (auto *box : {m_dense, m_lazy, m_masked}) {
        box->setObjectName(QStringLiteral("optimizer.") + box->text());
        box->setChecked(box != m_masked);
    }
    m_gradients = new QListWidget;
    m_gradients->setObjectName(QStringLiteral("optimizer.gradients"));
    m_gradients->setSizeAdjustPolicy(QAbstractScrollArea::AdjustIgnored);
    m_mask = new QComboBox;
    m_mask->setObjectName(QStringLiteral("optimizer.mask"));
    m_run = new QPushButton(tr("&Run"));
    m_run->setObjectName(QStringLiteral("optimizer.run"));
    m_run->setToolTip(tr("Run the steps on the tensor shown, once per chosen semantics, in the background"));
    m_formProblem = new QLabel;
    m_formProblem->setObjectName(QStringLiteral("optimizer.form_problem"));
    m_formProblem->setWordWrap(true);
    m_formProblem->setStyleSheet(QStringLiteral("color: #b00020"));
    m_formProblem->hide();
    m_summary = new QLabel;
    m_summary->setObjectName(QStringLiteral("optimizer.summary"));
    m_summary->setWordWrap(true);

    auto *semantics = new QHBoxLayout;
    for (auto *box : {m_dense, m_lazy, m_masked})
        semantics->addWidget(box);
    auto *form = new QFormLayout;
    form->addRow(tr("Optimizer"), m_optimizer);
    form->addRow(tr("Rule"), m_rule);
    form->addRow(tr("Learning rate"), m_lr);
    form->addRow(tr("Weight decay"), m_weightDecay);
    form->addRow(tr("Momentum"), m_momentum);
    auto *betas = new QHBoxLayout;
    betas->addWidget(m_beta1);
    betas->addWidget(m_beta2);
    form->addRow(tr("Betas"), betas);
    form->addRow(tr("Eps"), m_eps);
    form->addRow(tr("Semantics"), semantics);
    form->addRow(tr("Gradients"), m_gradients);
    form->addRow(tr("Mask"), m_mask);

    m_divergence = new DivergenceModel(document, this);
    m_divergenceView = new QTableView;
    m_divergenceView->setObjectName(QStringLiteral("optimizer.divergence"));
    m_divergenceView->setModel(m_divergence);
    m_divergenceView->verticalHeader()->hide();
    // Rows as tall as their text, as in the Attributes table: a 720-pixel screen shows more of them.
    m_divergenceView->verticalHeader()->setDefaultSectionSize(m_divergenceView->fontMetrics().height() + 6);
    m_divergenceView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view = new QComboBox;
    m_view->setObjectName(QStringLiteral("optimizer.view"));
    m_matrix = new MatrixView(document);
    m_matrix->setMinimumHeight(240);
    m_divergenceView->setMinimumHeight(110);

    m_results = new QWidget;
    auto *resultsLayout = new QVBoxLayout(m_results);
    resultsLayout->setContentsMargins(0, 0, 0, 0);
    resultsLayout->addWidget(m_divergenceView);
    resultsLayout->addWidget(m_view);
    resultsLayout->addWidget(m_matrix, 1);

    // The form and the results scroll; Run, what stops it and what the run did (or why it did
    // not) stay in view below them at any dock height (at 1280 x 720 Run was below the fold,
    // under the Mask box, and a run's summary or failure further down).
    auto *content = new QWidget;
    auto *contentLayout = new QVBoxLayout(content);
    contentLayout->addLayout(form);
    contentLayout->addWidget(m_results, 1);
    m_scroll = new QScrollArea;
    m_scroll->setObjectName(QStringLiteral("optimizer.scroll"));
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setFocusPolicy(Qt::NoFocus); // Tab goes to the first field, not to the scroll area
    m_scroll->setWidget(content);
    ScrollWheelGuard::install(m_scroll);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_scroll, 1);
    auto *footer = new QVBoxLayout;
    footer->setContentsMargins(contentLayout->contentsMargins());
    footer->addWidget(m_formProblem);
    footer->addWidget(m_run);
    footer->addWidget(m_summary);
    layout->addLayout(footer);
    // Tab goes through the form, to Run, then to the results, as they read (Run, added last,
    // came after the results).
    setTabOrder(m_mask, m_run);
    setTabOrder(m_run, m_divergenceView);

    connect(m_gradients, &QListWidget::itemChanged, this, [this](QListWidgetItem *item) {
        m_ticked.removeAll(item->text());
        if (item->checkState() == Qt::Checked)
            m_ticked << item->text();
    });
    connect(m_mask, &QComboBox::currentIndexChanged, this,
            [this](int index) { m_maskChoice = index > 0 ? m_mask->currentText() : QString(); });
    connect(m_run, &QPushButton::clicked, this, [this] {
        m_failed = false;
        m_awaitingRun = true;
        emit runRequested(request());
    });
    connect(m_optimizer, &QComboBox::currentIndexChanged, this, &OptimizerPanel::offerParameters);
    connect(m_rule, &QComboBox::currentIndexChanged, this, &OptimizerPanel::offerParameters);
    for (QComboBox *box : {m_optimizer, m_rule, m_mask, m_device.data()})
        connect(box, &QComboBox::currentIndexChanged, this, &OptimizerPanel::choicesChanged);
    for (auto *box : {m_lr, m_weightDecay, m_momentum})
        connect(box, &QDoubleSpinBox::valueChanged, this, &OptimizerPanel::choicesChanged);
    for (auto *field : {m_beta1, m_beta2, m_eps})
        connect(field, &QLineEdit::textChanged, this, &OptimizerPanel::choicesChanged);
    for (auto *box : {m_dense, m_lazy, m_masked})
        connect(box, &QCheckBox::toggled, this, &OptimizerPanel::choicesChanged);
    connect(m_gradients, &QListWidget::itemChanged, this, &OptimizerPanel::choicesChanged);
    connect(this, &OptimizerPanel::choicesChanged, this, &OptimizerPanel::checkForm);
    offerParameters();
    checkForm();
    connect(m_view, &QComboBox::currentIndexChanged, this, &OptimizerPanel::showChosenView);
    connect(document, &TensorDocument::optimizerRunChanged, this, &OptimizerPanel::showRun);
    connect(document, &TensorDocument::applicationsChanged, this, &OptimizerPanel::showSummary);
    connect(document, &TensorDocument::tensorChanged, this, &OptimizerPanel::showSummary);
    connect(document, &TensorDocument::tensorChanged, this, &OptimizerPanel::showChosenView); // links follow the tensor shown
    connect(document, &TensorDocument::tensorChanged, this, &OptimizerPanel::markUnfitElements);
    showRun();
}

OptimizerPanel::~OptimizerPanel()
{
    if (m_device && !m_device->parent())
        delete m_device.data();
}

void OptimizerPanel::setElements(const std::vector<OfferedElement> &elements)
{
    m_elements = elements;
    // The ticks and the mask are the user's: they outlive a list without them (a file row or
    // another file selected for a moment) and come back with it.
    {
        const QSignalBlocker blocker(m_gradients);
        m_gradients->clear();
        for (const auto &element : elements) {
            auto *item = new QListWidgetItem(element.path, m_gradients);
            item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
            item->setCheckState(m_ticked.contains(element.path) ? Qt::Checked : Qt::Unchecked);
        }
    }
    fitGradientList();
    {
        const QSignalBlocker blocker(m_mask);
        m_mask->clear();
        m_mask->addItem(tr("(none)"));
        for (const auto &element : elements)
            m_mask->addItem(element.path);
    }
    markUnfitElements();
}

// The gradient list as tall as its rows, up to an eighth of the window (90 pixels at least):
// at 1280x720 the 90 pixels it always had, at 2560x1440 a file's eight elements without a
// scroll bar, the rest of a tall window left to the results.
void OptimizerPanel::fitGradientList()
{
    const int row = m_gradients->count() > 0 ? m_gradients->sizeHintForRow(0) : m_gradients->fontMetrics().height();
    const int rows = std::max(1, m_gradients->count());
    const int frame = 2 * m_gradients->frameWidth();
    const int room = std::max(90, window()->height() / 8);
    m_gradients->setFixedHeight(std::min(rows * row + frame, room));
}

// The panel, in a scroll area, keeps its size when the window's changes: the window is watched.
void OptimizerPanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    window()->installEventFilter(this); // once: installing again moves it to the front
    fitGradientList();
}

bool OptimizerPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == window() && event->type() == QEvent::Resize)
        fitGradientList();
    return QWidget::eventFilter(watched, event);
}

QString OptimizerPanel::unfitReason(const QString &path) const
{
    if (!m_document->hasTensor())
        return {};
    auto parameter = m_document->tensor().shape();
    if (!parameter.empty())
        parameter[0] = m_document->totalRows(); // the whole tensor's, not the rows loaded
    for (const auto &element : m_elements)
        if (element.path == path && element.shape != parameter)
            return tr("%1 has shape %2; the parameter %3 has shape %4")
                .arg(path, QString::fromStdString(core::shapeToString(element.shape)), m_document->source().elementPath,
                     QString::fromStdString(core::shapeToString(parameter)));
    return {};
}

void OptimizerPanel::markUnfitElements()
{
    {
        const QSignalBlocker blocker(m_gradients);
        for (int row = 0; row < m_gradients->count(); ++row) {
            auto *item = m_gradients->item(row);
            const auto reason = unfitReason(item->text());
            // Unfit: shown, greyed out and unticked, so a run never takes it; the user's tick
            // comes back with a parameter it fits.
            item->setFlags(reason.isEmpty() ? item->flags() | Qt::ItemIsEnabled : item->flags() & ~Qt::ItemIsEnabled);
            item->setCheckState(reason.isEmpty() && m_ticked.contains(item->text()) ? Qt::Checked : Qt::Unchecked);
            item->setToolTip(reason);
        }
    }
    const QSignalBlocker blocker(m_mask);
    auto *masks = qobject_cast<QStandardItemModel *>(m_mask->model());
    for (int row = 1; masks && row < m_mask->count(); ++row) {
        const auto reason = unfitReason(m_mask->itemText(row));
        auto *item = masks->item(row);
        item->setEnabled(reason.isEmpty());
        item->setToolTip(reason);
    }
    const int chosen = m_mask->findText(m_maskChoice);
    m_mask->setCurrentIndex(chosen > 0 && unfitReason(m_maskChoice).isEmpty() ? chosen : 0);
}

void OptimizerPanel::showFailure(const QString &error)
{
    m_failed = true;
    m_awaitingRun = false;
    m_summary->setText(tr("Run did not happen: %1").arg(error));
    m_summary->setStyleSheet(QStringLiteral("color: #b00020"));
}

// The form's fields as they stand, whether the optimizer has them or not (a workspace keeps
// a beta typed before switching to sgd); no gradients or mask.
OptimizerRequest OptimizerPanel::fieldValues() const
{
    OptimizerRequest r;
    r.kind = core::parseOptimizer(m_optimizer->currentText().toStdString());
    r.rule = core::parseRule(m_rule->currentText().toStdString());
    auto &hp = r.hyperparameters;
    hp.lr = m_lr->value();
    if (m_weightDecay->value() > 0.0)
        hp.weightDecay = m_weightDecay->value();
    if (m_momentum->value() > 0.0)
        hp.momentum = m_momentum->value();
    hp.beta1 = numberIn(m_beta1);
    hp.beta2 = numberIn(m_beta2);
    hp.eps = numberIn(m_eps);
    if (m_dense->isChecked())
        r.semantics.push_back(core::Semantics::Dense);
    if (m_lazy->isChecked())
        r.semantics.push_back(core::Semantics::Lazy);
    if (m_masked->isChecked())
        r.semantics.push_back(core::Semantics::Masked);
    r.device = m_device->currentText() == QStringLiteral("cuda") ? core::Device::Cuda : core::Device::Cpu;
    return r;
}

OptimizerRequest OptimizerPanel::request() const
{
    auto r = fieldValues();
    // Only what the optimizer has under the rule: the others are greyed out (offerParameters).
    const auto offered = core::parametersOf(r.kind, r.rule);
    auto &hp = r.hyperparameters;
    if (!offered.weightDecay)
        hp.weightDecay.reset();
    if (!offered.momentum)
        hp.momentum.reset();
    if (!offered.betas) {
        hp.beta1.reset();
        hp.beta2.reset();
    }
    if (!offered.eps)
        hp.eps.reset();
    for (int row = 0; row < m_gradients->count(); ++row)
        if (m_gradients->item(row)->checkState() == Qt::Checked)
            r.gradients << m_gradients->item(row)->text();
    if (m_gradients->count() == 0) // nothing listed right now: the ticks as they stand
        r.gradients = m_ticked;
    r.mask = m_mask->currentIndex() > 0 ? m_mask->currentText() : QString();
    if (m_mask->count() <= 1) // nothing listed right now: the choice as it stands
        r.mask = m_maskChoice;
    return r;
}

OptimizerRequest OptimizerPanel::choices() const
{
    auto r = fieldValues();
    r.gradients = m_ticked;
    r.mask = m_maskChoice;
    return r;
}

void OptimizerPanel::offerParameters()
{
    const auto kind = core::parseOptimizer(m_optimizer->currentText().toStdString());
    const auto rule = core::parseRule(m_rule->currentText().toStdString());
    const auto offered = core::parametersOf(kind, rule);
    core::HyperparameterInput given;
    given.lr = m_lr->value(); // sgd under torch has no default lr
    core::Hyperparameters defaults;
    try {
        defaults = core::resolveOptions(kind, core::Semantics::Dense, rule, given).hp;
    } catch (const core::Error &) { // no defaults to show: the run says what is wrong
    }
    const auto notAnOption =
        tr("Not an option of %1 under the %2 rule")
            .arg(QString::fromUtf8(core::optimizerName(kind).data()), QString::fromUtf8(core::ruleName(rule).data()));
    const auto offer = [&](QWidget *field, bool has, const QString &tip) {
        field->setEnabled(has);
        field->setToolTip(has ? tip : notAnOption);
    };
    offer(m_weightDecay, offered.weightDecay, QString());
    offer(m_momentum, offered.momentum, QString());
    offer(m_beta1, offered.betas, tr("beta1: empty for the default"));
    offer(m_beta2, offered.betas, tr("beta2: empty for the default"));
    offer(m_eps, offered.eps, tr("Empty for the default"));
    // A greyed-out field shows no default: it has none under this optimizer.
    m_beta1->setPlaceholderText(offered.betas ? fieldText(defaults.beta1) : QString());
    m_beta2->setPlaceholderText(offered.betas ? fieldText(defaults.beta2) : QString());
    m_eps->setPlaceholderText(offered.eps ? fieldText(defaults.eps) : QString());
}

void OptimizerPanel::checkForm()
{
    if (m_failed) { // the user has answered the last refusal by changing the form
        m_failed = false;
        showSummary();
    }
    const auto r = request();
    const bool lazy = std::find(r.semantics.begin(), r.semantics.end(), core::Semantics::Lazy) != r.semantics.end();
    QString problem;
    // In the form's own words where it can (resolveOptions' refusals name the parameters as
    // `sparsity step` does); what is left is resolveOptions' to say.
    for (const auto &[field, name] :
         {std::pair{m_beta1, tr("Beta1")}, std::pair{m_beta2, tr("Beta2")}, std::pair{m_eps, tr("Eps")}})
        if (const auto value = numberIn(field); field->isEnabled() && value && std::isnan(*value))
            problem = tr("%1 is not a number: %2").arg(name, field->text());
    if (r.semantics.empty())
        problem = tr("Tick at least one semantics.");
    if (problem.isEmpty() && lazy && r.hyperparameters.weightDecay && !core::lazyTakesWeightDecay(r.kind, r.rule))
        problem =
            tr("lazy %1 under the %2 rule has no weight decay: untick lazy, or set Weight decay to 0.")
                .arg(QString::fromUtf8(core::optimizerName(r.kind).data()), QString::fromUtf8(core::ruleName(r.rule).data()));
    for (const auto semantics : r.semantics) {
        if (!problem.isEmpty())
            break;
        try {
            core::resolveOptions(r.kind, semantics, r.rule, r.hyperparameters);
        } catch (const core::Error &error) {
            problem = QString::fromStdString(error.what());
            break;
        }
    }
    m_formProblem->setText(problem.isEmpty() ? QString() : tr("Cannot run: %1").arg(problem));
    m_formProblem->setVisible(!problem.isEmpty());
    m_run->setEnabled(problem.isEmpty());
}

void OptimizerPanel::setRequest(const OptimizerRequest &r)
{
    m_optimizer->setCurrentText(QString::fromUtf8(core::optimizerName(r.kind).data()));
    m_rule->setCurrentText(QString::fromUtf8(core::ruleName(r.rule).data()));
    m_device->setCurrentText(QString::fromUtf8(core::deviceName(r.device).data()));
    m_lr->setValue(r.hyperparameters.lr.value_or(0.1));
    m_weightDecay->setValue(r.hyperparameters.weightDecay.value_or(0.0));
    m_momentum->setValue(r.hyperparameters.momentum.value_or(0.0));
    m_beta1->setText(fieldText(r.hyperparameters.beta1));
    m_beta2->setText(fieldText(r.hyperparameters.beta2));
    m_eps->setText(fieldText(r.hyperparameters.eps));
    const auto has = [&r](core::Semantics s) {
        return std::find(r.semantics.begin(), r.semantics.end(), s) != r.semantics.end();
    };
    m_dense->setChecked(has(core::Semantics::Dense));
    m_lazy->setChecked(has(core::Semantics::Lazy));
    m_masked->setChecked(has(core::Semantics::Masked));
    m_ticked = r.gradients;
    m_maskChoice = r.mask;
    markUnfitElements();
}

void OptimizerPanel::showRun()
{
    const auto &run = m_document->optimizerRun();
    {
        const QSignalBlocker blocker(m_view);
        // The view chosen ("lazy: sum", say) stays chosen when the new run has it too: a user
        // stepping again, or another window of rows, watches the same thing change.
        const auto chosen = m_view->currentText();
        m_view->clear();
        if (run) {
            const auto &results = run->comparison.results;
            for (std::size_t k = 0; k < results.size(); ++k) {
                const QString s = semanticsText(results[k].semantics);
                for (std::size_t t = 0; t < results[k].tensors.size(); ++t)
                    m_view->addItem(QStringLiteral("%1: %2").arg(s, QString::fromStdString(results[k].tensors[t].first)),
                                    viewKey(k, ViewKind::Tensor, t));
                m_view->addItem(tr("%1: row staleness").arg(s), viewKey(k, ViewKind::Staleness, 0));
            }
            for (std::size_t k = 1; k < results.size(); ++k)
                for (std::size_t t = 0; t < results[k].tensors.size(); ++t)
                    m_view->addItem(QStringLiteral("%1 − %2: %3")
                                        .arg(semanticsText(results[k].semantics), semanticsText(results[0].semantics),
                                             QString::fromStdString(results[k].tensors[t].first)),
                                    viewKey(k, ViewKind::Difference, t));
        }
        m_view->setCurrentIndex(std::max(0, m_view->findText(chosen)));
    }
    m_failed = false;
    showSummary();
    showChosenView();
    // The run Run asked for comes into view: its table and matrix were below the form, unseen.
    // Another change of the run shown (an Undo while editing the form) leaves the form where it is.
    if (run && std::exchange(m_awaitingRun, false))
        m_scroll->verticalScrollBar()->setValue(m_results->y());
}

void OptimizerPanel::showSummary()
{
    if (m_failed) // said until the next run or request, not wiped by a scroll or an Apply
        return;
    const auto &run = m_document->optimizerRun();
    const bool stale = m_document->optimizerRunIsStale();
    const auto text = run ? run->description : tr("Choose gradients and semantics, then Run.");
    m_summary->setText(stale ? tr("%1 — stale: the values shown changed since (Apply or Undo); Run again").arg(text) : text);
    m_summary->setStyleSheet(stale ? QStringLiteral("color: #b00020") : QString());
}

void OptimizerPanel::showChosenView()
{
    const auto &run = m_document->optimizerRun();
    const auto key = m_view->currentData().toList();
    if (!run || key.size() != 3) {
        m_matrix->showMessage(tr("No run yet"));
        return;
    }
    const auto &results = run->comparison.results;
    const auto k = key[0].value<std::size_t>();
    const auto kind = static_cast<ViewKind>(key[1].toInt());
    const auto t = key[2].value<std::size_t>();
    const auto &result = results[k];
    // A window of a table's rows says which (its axis numbers them as the table's).
    const auto title = run->rows.count() < run->totalRows ? tr("%1 (rows %2–%3 of %4)")
                                                                .arg(m_view->currentText())
                                                                .arg(run->rows.begin)
                                                                .arg(run->rows.end - 1)
                                                                .arg(run->totalRows)
                                                          : m_view->currentText();
    // Views of the tensor shown link to it: selecting or hovering there or here is the same.
    const bool linked = m_document->optimizerRunShown();
    const auto link = [linked](CellLink l) { return linked ? l : CellLink::None; };
    switch (kind) {
    case ViewKind::Tensor:
        m_matrix->showMatrix(title, result.tensors[t].second, link(CellLink::Elements));
        break;
    case ViewKind::Staleness: {
        // Steps since each row was last written, as one column (0: written by the last step).
        const auto rows = static_cast<std::int64_t>(result.lastUpdate.size());
        core::DenseTensor<double> staleness{{rows, 1}, {}};
        for (const auto last : result.lastUpdate)
            staleness.values.push_back(static_cast<double>(result.finalStep - last));
        m_matrix->showMatrix(title, staleness, link(CellLink::Rows));
        break;
    }
    case ViewKind::Difference: {
        const auto &a = result.tensors[t].second;
        const auto &b = results[0].tensors[t].second;
        core::DenseTensor<double> difference{a.shape, {}};
        for (std::size_t i = 0; i < a.values.size(); ++i)
            difference.values.push_back(a.values[i] - b.values[i]);
        m_matrix->showMatrix(title, difference, link(CellLink::Elements));
        break;
    }
    }
    m_matrix->setFirstRow(run->rows.begin); // a window of a table's rows is numbered as the table's
}

} // namespace sparsity::ui
