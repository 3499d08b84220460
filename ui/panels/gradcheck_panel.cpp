#include "ui/panels/gradcheck_panel.h"

#include "core/expr/expression.h"
#include "ui/document/file_labels.h"
#include "ui/document/tensor_document.h"
#include "ui/views/matrix_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QRegularExpression>
#include <QVBoxLayout>
#include <algorithm>

namespace sparsity::ui {
namespace {

// "x[1, 0]" for a row-major element of `shape`.
QString elementName(const std::string &name, std::int64_t flat, const core::Shape &shape)
{
    QStringList parts;
    for (auto d = static_cast<std::ptrdiff_t>(shape.size()) - 1; d >= 0; --d) {
        const auto extent = std::max<std::int64_t>(shape[static_cast<std::size_t>(d)], 1);
        parts.prepend(QString::number(flat % extent));
        flat /= extent;
    }
    return QStringLiteral("%1[%2]").arg(QString::fromStdString(name), parts.join(QStringLiteral(", ")));
}

// Item data of an input chooser: the element, as {file, path}.
constexpr int kBindingRole = Qt::UserRole + 1;

QStringList bindingKey(const ElementRef &element) { return {element.file, element.path}; }

// "x = /x (inst.h5), w = /w (other.h5)": what a result was computed on.
QString describeInputs(const QMap<QString, ElementRef> &inputs)
{
    QStringList parts;
    for (auto it = inputs.begin(); it != inputs.end(); ++it)
        parts << QStringLiteral("%1 = %2 (%3)").arg(it.key(), it.value().path, QFileInfo(it.value().file).fileName());
    return parts.join(QStringLiteral(", "));
}

} // namespace

GradcheckPanel::GradcheckPanel(TensorDocument *document, QWidget *parent) : QWidget(parent), m_document(document)
{
    m_expression = new QLineEdit;
    m_expression->setObjectName(QStringLiteral("gradcheck.expression"));
    m_expression->setPlaceholderText(QStringLiteral("softmax(mm(x, w), 1)"));
    m_expression->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_error = new QLabel;
    m_error->setObjectName(QStringLiteral("gradcheck.error"));
    m_error->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_error->setStyleSheet(QStringLiteral("color: #b00020"));
    m_error->setWordWrap(true);
    m_inputsBox = new QWidget;
    m_inputsForm = new QFormLayout(m_inputsBox);
    m_inputsForm->setContentsMargins(0, 0, 0, 0);
    m_masked = new QCheckBox(tr("masked"));
    m_masked->setObjectName(QStringLiteral("gradcheck.masked"));
    m_fast = new QCheckBox(tr("fast"));
    m_fast->setObjectName(QStringLiteral("gradcheck.fast"));
    m_eps = new QDoubleSpinBox;
    m_eps->setObjectName(QStringLiteral("gradcheck.eps"));
    m_eps->setDecimals(9);
    m_eps->setRange(1e-9, 1.0);
    m_eps->setValue(1e-6);
    auto *run = new QPushButton(tr("&Check"));
    run->setObjectName(QStringLiteral("gradcheck.run"));
    m_verdict = new QLabel;
    m_verdict->setObjectName(QStringLiteral("gradcheck.verdict"));
    m_verdict->setWordWrap(true);
    m_input = new QComboBox;
    m_input->setObjectName(QStringLiteral("gradcheck.input"));
    m_numerical = new MatrixView(document);
    m_analytical = new MatrixView(document);
    m_difference = new MatrixView(document);
    m_findings = new QListWidget;
    m_findings->setObjectName(QStringLiteral("gradcheck.findings"));
    m_findings->setWordWrap(true);

    auto *toggles = new QHBoxLayout;
    toggles->addWidget(m_masked);
    toggles->addWidget(m_fast);
    toggles->addWidget(new QLabel(tr("eps")));
    toggles->addWidget(m_eps);
    auto *jacobians = new QVBoxLayout;
    for (auto *view : {m_numerical, m_analytical, m_difference}) {
        view->setMinimumSize(200, 110);
        jacobians->addWidget(view);
    }
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(new QLabel(tr("Expression")));
    layout->addWidget(m_expression);
    layout->addWidget(m_error);
    layout->addWidget(m_inputsBox);
    layout->addLayout(toggles);
    layout->addWidget(run);
    layout->addWidget(m_verdict);
    layout->addWidget(m_input);
    layout->addLayout(jacobians, 3);
    layout->addWidget(m_findings, 2);

    connect(m_expression, &QLineEdit::textChanged, this, &GradcheckPanel::checkExpression);
    connect(m_expression, &QLineEdit::textChanged, this, &GradcheckPanel::choicesChanged);
    for (auto *box : {m_masked, m_fast})
        connect(box, &QCheckBox::toggled, this, &GradcheckPanel::choicesChanged);
    connect(m_eps, &QDoubleSpinBox::valueChanged, this, &GradcheckPanel::choicesChanged);
    connect(run, &QPushButton::clicked, this, [this] {
        if (!expressionError().isEmpty())
            return showFailure(tr("the expression does not parse"));
        if (const auto unbound = unboundInputs(); !unbound.isEmpty())
            return showFailure(unbound);
        const auto r = request();
        // The old verdict goes: what is on screen is this run's, pending until it lands.
        showVerdict(tr("Checking %1 on %2…").arg(r.expression, describeInputs(r.inputs)), QString());
        for (auto *view : {m_numerical, m_analytical, m_difference}) // not the last run's maps or failure
            view->showMessage(tr("Checking…"));
        emit runRequested(r);
    });
    connect(m_expression, &QLineEdit::returnPressed, run, &QPushButton::click); // Enter checks, as Check does
    connect(m_input, &QComboBox::currentIndexChanged, this, &GradcheckPanel::showInput);
    connect(document, &TensorDocument::gradcheckRunChanged, this, &GradcheckPanel::showRun);
    connect(document, &TensorDocument::tensorChanged, this, &GradcheckPanel::relink); // links follow the tensor shown
    checkExpression();
    showRun();
}

void GradcheckPanel::setElements(const QList<ElementRef> &elements, const QString &currentFile)
{
    m_elements.clear();
    for (bool current : {true, false})
        for (const auto &element : elements)
            if ((element.file == currentFile) == current)
                m_elements << element;
    m_currentFile = currentFile;
    checkExpression();
}

QString GradcheckPanel::expressionError() const { return m_error->property("message").toString(); }

void GradcheckPanel::checkExpression()
{
    const QString source = m_expression->text();
    QStringList names;
    QString message;
    if (!source.trimmed().isEmpty()) {
        try {
            for (const auto &name : core::parseExpression(source.toStdString())->inputNames())
                names << QString::fromStdString(name);
        } catch (const core::Error &error) {
            message = QString::fromStdString(error.what());
        }
    }
    m_error->setProperty("message", message);
    m_error->setVisible(!message.isEmpty());
    if (message.isEmpty()) {
        m_error->clear();
    } else {
        // The expression with a caret under the column the parser names.
        const auto column = QRegularExpression(QStringLiteral("column (\\d+)")).match(message).captured(1).toInt();
        m_error->setText(column > 0 ? QStringLiteral("%1\n%2^\n%3").arg(source, QString(column - 1, QLatin1Char(' ')), message)
                                    : message);
    }
    // One chooser per input name, each bound to an element by file and path (never by its
    // position in the list, which changes as files open and the shown tensor changes).
    while (m_inputsForm->rowCount() > 0)
        m_inputsForm->removeRow(0);
    m_inputChoosers.clear();
    bool bindingsAdded = false; // a choice the form now makes (a file opened), as an edit would
    // Defaults for the names not bound: first each one's element of its name, then the tensor
    // shown for the first name left, unless a name is bound to it already (binding two names
    // to one tensor made mm(x, w) a sure shape error). Any other is left for the user to choose.
    for (const auto &name : names)
        if (!m_bindings.contains(name))
            if (const auto named = elementNamed(name)) {
                m_bindings[name] = *named;
                bindingsAdded = true;
            }
    const auto fallback = fallbackElement();
    const bool fallbackTaken = std::any_of(names.begin(), names.end(), [&](const QString &name) {
        return m_bindings.contains(name) && m_bindings.value(name) == fallback;
    });
    for (const auto &name : names)
        if (fallback && !fallbackTaken && !m_bindings.contains(name)) {
            m_bindings[name] = *fallback;
            bindingsAdded = true;
            break;
        }
    for (const auto &name : names) {
        auto *chooser = new QComboBox;
        chooser->setObjectName(QStringLiteral("gradcheck.input.") + name);
        chooser->setPlaceholderText(tr("Choose a tensor")); // bound to none: no item looks chosen
        for (const auto &element : m_elements)
            addElementItem(chooser, element, QString());
        if (m_bindings.contains(name)) {
            const auto &binding = m_bindings[name];
            if (!m_elements.contains(binding)) // its file was closed: kept, and Check refuses it
                addElementItem(chooser, binding, tr(" (not open)"));
            chooser->setCurrentIndex(chooser->findData(bindingKey(binding), kBindingRole));
        } else {
            chooser->setCurrentIndex(-1);
        }
        chooser->setToolTip(tr("Tensors of every open file; the shown tensor's file by path alone"));
        connect(chooser, &QComboBox::activated, this, [this, name, chooser](int index) {
            const auto key = chooser->itemData(index, kBindingRole).toStringList();
            if (key.size() == 2)
                m_bindings[name] = ElementRef{key[0], key[1]};
            emit choicesChanged();
        });
        m_inputsForm->addRow(name, chooser);
        m_inputChoosers[name] = chooser;
    }
    if (bindingsAdded)
        emit choicesChanged();
}

void GradcheckPanel::addElementItem(QComboBox *chooser, const ElementRef &element, const QString &suffix) const
{
    QStringList files; // the open ones, to tell apart two files of one name
    for (const auto &open : m_elements)
        if (!files.contains(open.file))
            files << open.file;
    const QString text =
        element.file == m_currentFile ? element.path : QStringLiteral("%1:%2").arg(fileLabel(element.file, files), element.path);
    chooser->addItem(text + suffix);
    chooser->setItemData(chooser->count() - 1, bindingKey(element), kBindingRole);
    chooser->setItemData(chooser->count() - 1, QStringLiteral("%1:%2").arg(element.file, element.path), Qt::ToolTipRole);
}

void GradcheckPanel::setRequest(const GradcheckPanelRequest &r)
{
    m_bindings.clear(); // the request's, not those of a form typed before
    for (auto it = r.inputs.begin(); it != r.inputs.end(); ++it)
        m_bindings[it.key()] = it.value();
    m_expression->setText(r.expression);
    checkExpression(); // rebuilds the input choosers on the bindings
    m_masked->setChecked(r.options.masked);
    m_fast->setChecked(r.options.fast);
    m_eps->setValue(r.options.eps);
}

std::optional<ElementRef> GradcheckPanel::elementNamed(const QString &name) const
{
    // m_elements lists the shown tensor's file first: its "/x" wins over another file's.
    for (const auto &element : m_elements)
        if (element.path == QStringLiteral("/") + name)
            return element;
    return std::nullopt;
}

std::optional<ElementRef> GradcheckPanel::fallbackElement() const
{
    // The tensor shown, which is what the user is looking at (the file's first element, /emb
    // in the sample, was bound before, whatever was shown).
    const ElementRef shown{m_document->source().filePath, m_document->source().elementPath};
    if (m_elements.contains(shown))
        return shown;
    if (m_elements.isEmpty())
        return std::nullopt;
    return m_elements.first();
}

QString GradcheckPanel::unboundInputs() const
{
    QStringList problems;
    for (auto it = m_inputChoosers.begin(); it != m_inputChoosers.end(); ++it) {
        if (!m_bindings.contains(it.key()))
            problems << (m_elements.isEmpty() ? tr("%1 is bound to no tensor (open a file)").arg(it.key())
                                              : tr("choose a tensor for %1").arg(it.key()));
        else if (!m_elements.contains(m_bindings[it.key()]))
            problems << tr("%1 is bound to %2:%3, which is not open")
                            .arg(it.key(), QFileInfo(m_bindings[it.key()].file).fileName(), m_bindings[it.key()].path);
    }
    return problems.join(QStringLiteral("; "));
}

GradcheckPanelRequest GradcheckPanel::request() const
{
    GradcheckPanelRequest r;
    r.expression = m_expression->text();
    for (auto it = m_inputChoosers.begin(); it != m_inputChoosers.end(); ++it)
        if (m_bindings.contains(it.key()))
            r.inputs[it.key()] = m_bindings[it.key()];
    r.options.masked = m_masked->isChecked();
    r.options.fast = m_fast->isChecked();
    r.options.eps = m_eps->value();
    return r;
}

void GradcheckPanel::showRun()
{
    const auto &run = m_document->gradcheckRun();
    {
        const QSignalBlocker blocker(m_input);
        m_input->clear();
        if (run)
            for (const auto &input : run->report.inputs)
                m_input->addItem(QString::fromStdString(input.name));
    }
    if (!run) {
        showVerdict(tr("Type an expression over the open files' tensors, then Check."), QString());
    } else {
        const auto &o = run->report.options;
        showVerdict(tr("%1 on %2: %3 (%4, eps %5, atol %6, rtol %7)")
                        .arg(run->expression, describeInputs(run->inputs), run->report.passed ? tr("PASSED") : tr("FAILED"),
                             o.masked ? tr("masked") : tr("non-masked"))
                        .arg(o.eps)
                        .arg(o.atol)
                        .arg(o.rtol),
                    run->report.passed ? QStringLiteral("#1b5e20") : QStringLiteral("#b00020"));
    }
    showInput();
}

void GradcheckPanel::showVerdict(const QString &text, const QString &colour)
{
    m_verdict->setText(text);
    m_verdict->setStyleSheet(colour.isEmpty() ? QString() : QStringLiteral("color: %1").arg(colour));
}

void GradcheckPanel::showFailure(const QString &error)
{
    // An older verdict must not stay beside this error: the views are cleared too.
    showVerdict(tr("Check did not run: %1").arg(error), QStringLiteral("#b00020"));
    m_findings->clear();
    {
        const QSignalBlocker blocker(m_input);
        m_input->clear();
    }
    for (auto *view : {m_numerical, m_analytical, m_difference})
        view->showMessage(tr("No result: the check did not run"));
}

CellLink GradcheckPanel::linkToShown() const
{
    // An input that is the tensor shown links its Jacobian rows (its elements) to it.
    const auto &run = m_document->gradcheckRun();
    const int index = m_input->currentIndex();
    if (!run || index < 0 || static_cast<std::size_t>(index) >= run->report.inputs.size())
        return CellLink::None;
    const auto &name = run->report.inputs[static_cast<std::size_t>(index)].name;
    const bool linked = run->inputs.value(QString::fromStdString(name))
                        == ElementRef{m_document->source().filePath, m_document->source().elementPath};
    return linked ? CellLink::ElementRows : CellLink::None;
}

void GradcheckPanel::relink()
{
    // Only the links change: drawing 4096 x 4096 Jacobians again took seconds per tensor switch.
    const auto link = linkToShown();
    for (auto *view : {m_numerical, m_analytical, m_difference})
        view->setLink(link);
}

void GradcheckPanel::showInput()
{
    m_findings->clear();
    const auto &run = m_document->gradcheckRun();
    const int index = m_input->currentIndex();
    if (!run || index < 0) {
        // Said once, in the first map: three maps each saying it read as three findings.
        m_numerical->showMessage(tr("No check yet"));
        m_analytical->showMessage({});
        m_difference->showMessage({});
        return;
    }
    const auto shown = static_cast<std::size_t>(index);
    const auto &j = run->report.inputs[shown];
    const auto *made = m_document->gradcheckPictures();
    auto pictures = made ? (*made)[shown] : jacobianPictures(j);
    const auto link = linkToShown();
    m_numerical->showMatrix(tr("numerical"), std::move(pictures.numerical), link);
    m_analytical->showMatrix(tr("analytical"), std::move(pictures.analytical), link);
    m_difference->showMatrix(tr("analytical − numerical"), std::move(pictures.difference), link);
    // Fast mode's 1 x 1 Jacobians are projections: no element names fit them.
    const CellNames names{QString::fromStdString(j.name), j.shape, tr("out"), run->report.outputShape};
    for (auto *view : {m_numerical, m_analytical, m_difference})
        view->setCellNames(names);
    m_findings->addItem(
        tr("%1 %2: Jacobian %3 x %4 (rows: input elements, columns: output elements), max |diff| %5, %6 mismatching")
            .arg(QString::fromStdString(j.name), QString::fromStdString(core::shapeToString(j.shape)))
            .arg(j.rows)
            .arg(j.cols)
            .arg(j.maxAbsDiff, 0, 'g', 4)
            .arg(j.mismatches.size()));
    for (const auto &use : j.uses)
        m_findings->addItem(tr("use: %1").arg(QString::fromStdString(use)));
    for (const auto &explanation : j.explanations)
        m_findings->addItem(QString::fromStdString(explanation));
    constexpr std::size_t kListed = 100;
    for (std::size_t k = 0; k < std::min(j.mismatches.size(), kListed); ++k) {
        const auto [row, col] = j.mismatches[k];
        const auto at = static_cast<std::size_t>(row * j.cols + col);
        m_findings->addItem(tr("row %1 (%2), column %3: numerical %4, analytical %5")
                                .arg(row)
                                .arg(j.rows == 1 && j.cols == 1 ? tr("projection") : elementName(j.name, row, j.shape))
                                .arg(col)
                                .arg(j.numerical[at], 0, 'g', 6)
                                .arg(j.analytical[at], 0, 'g', 6));
    }
    if (j.mismatches.size() > kListed)
        m_findings->addItem(tr("… and %1 more").arg(j.mismatches.size() - kListed));
}

} // namespace sparsity::ui
