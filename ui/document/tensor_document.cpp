#include "ui/document/tensor_document.h"

#include "core/sparsify/data_sparsifier.h"
#include "core/sparsify/mask_kernels.h"
#include "core/sparsify/sparsifier_methods.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/errors.h"
#include "ui/document/commands/apply_sparsifier_command.h"
#include "ui/document/commands/change_export_settings_command.h"
#include "ui/document/commands/change_sparsifier_command.h"
#include "ui/document/commands/set_run_command.h"
#include "ui/document/file_labels.h"
#include "ui/document/index_text.h"

#include <algorithm>
#include <cmath>

namespace sparsity::ui {
namespace {

// Whether `file` is `filePath`, or any file when `filePath` is empty.
bool ofFile(const QString &file, const QString &filePath) { return filePath.isEmpty() || file == filePath; }

std::int64_t countNonzero(const core::DenseTensor<double> &values, const core::Mask *specified)
{
    std::int64_t count = 0;
    for (std::size_t i = 0; i < values.values.size(); ++i)
        count += (!specified || (*specified)[i]) && values.values[i] != 0.0;
    return count;
}

std::tuple<QString, QString, std::int64_t> editKey(const TensorSource &source)
{
    return {source.filePath, source.elementPath, source.firstRow};
}

} // namespace

QString describeSparsifier(const core::SparsifierConfig &c)
{
    const QString method = QString::fromUtf8(core::methodName(c.method).data());
    switch (c.method) {
    case core::SparsifierMethod::Threshold:
        return QStringLiteral("%1 T=%2").arg(method).arg(c.threshold, 0, 'g', 4);
    case core::SparsifierMethod::DataNorm:
        return QStringLiteral("%1 %2x%3 %4 level %5%6")
            .arg(method)
            .arg(c.blockRows)
            .arg(c.blockCols)
            .arg(c.norm == core::BlockNorm::L2 ? QStringLiteral("L2") : QStringLiteral("L1"))
            .arg(c.sparsityLevel, 0, 'g', 4)
            .arg(c.zerosPerBlock ? QStringLiteral(" zeros/block %1").arg(*c.zerosPerBlock) : QString());
    case core::SparsifierMethod::NM:
        return QStringLiteral("%1 %2:%3").arg(method).arg(c.n).arg(c.m);
    case core::SparsifierMethod::RowNorm:
        return QStringLiteral("%1 keep %2").arg(method).arg(c.keep, 0, 'g', 4);
    }
    return method;
}

ElementSelection ElementSelection::rectangle(std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1)
{
    ElementSelection s;
    s.kind = Kind::Rectangle;
    s.row0 = std::min(r0, r1);
    s.row1 = std::max(r0, r1);
    s.col0 = std::min(c0, c1);
    s.col1 = std::max(c0, c1);
    return s;
}

ElementSelection ElementSelection::valueRange(double lo, double hi)
{
    ElementSelection s;
    s.kind = Kind::ValueRange;
    s.lo = std::min(lo, hi);
    s.hi = std::max(lo, hi);
    return s;
}

ElementSelection ElementSelection::flatRange(std::int64_t first, std::int64_t last)
{
    ElementSelection s;
    s.kind = Kind::FlatRange;
    s.first = std::min(first, last);
    s.last = std::max(first, last);
    return s;
}

TensorDocument::TensorDocument(QObject *parent) : QObject(parent), m_wholeTable(new WholeTablePreview(this))
{
    // The whole table's choice came: the preview takes it.
    connect(m_wholeTable, &WholeTablePreview::ready, this, [this] {
        updatePruned();
        emit sparsifierChanged();
    });
}

std::int64_t TensorDocument::gridRows() const
{
    const auto rank = m_values.shape.size();
    if (rank >= 2)
        return m_values.shape[rank - 2];
    return hasTensor() ? 1 : 0;
}

std::int64_t TensorDocument::gridCols() const
{
    const auto rank = m_values.shape.size();
    if (rank >= 1)
        return m_values.shape[rank - 1];
    return hasTensor() ? 1 : 0;
}

std::int64_t TensorDocument::gridOffset() const
{
    std::int64_t offset = 0;
    for (std::size_t d = 0; d < m_slice.size(); ++d)
        offset = offset * m_values.shape[d] + m_slice[d];
    return offset * gridRows() * gridCols();
}

QString TensorDocument::coordinatesOf(std::int64_t flat) const { return indexText(m_values.shape, flat, m_source.firstRow); }

QString TensorDocument::describeElement(std::int64_t flat) const
{
    if (flat < 0 || flat >= static_cast<std::int64_t>(m_values.values.size()))
        return {};
    const auto k = static_cast<std::size_t>(flat);
    // An unspecified element has no value (its stored 0 is a placeholder, not data).
    if (m_specified && !(*m_specified)[k])
        return tr("%1 unspecified").arg(coordinatesOf(flat));
    QString text = QStringLiteral("%1 = %2").arg(coordinatesOf(flat), QString::number(m_values.values[k], 'g', 8));
    if (hasPreview())
        text += pruned()[k] ? tr(" — pruned by the preview") : tr(" — kept by the preview");
    return text;
}

QString TensorDocument::coverage() const
{
    if (m_values.shape.empty() || m_totalRows <= m_values.shape[0])
        return {};
    return tr("rows %1–%2 of %3").arg(m_source.firstRow).arg(m_source.firstRow + m_values.shape[0] - 1).arg(m_totalRows);
}

void TensorDocument::setSlice(std::size_t dim, std::int64_t index)
{
    if (dim >= m_slice.size() || index < 0 || index >= m_values.shape[dim] || m_slice[dim] == index)
        return;
    m_slice[dim] = index;
    m_hover.reset();
    if (m_selection.kind == ElementSelection::Kind::Rectangle)
        m_selection = {}; // a rectangle belongs to the slice it was drawn on
    updateSelected();
    emit sliceChanged();
    emit selectionChanged();
    emit hoverChanged();
}

void TensorDocument::setSelection(const ElementSelection &selection)
{
    if (selection == m_selection)
        return;
    m_selection = selection;
    updateSelected();
    emit selectionChanged();
}

void TensorDocument::setHover(std::optional<std::int64_t> element)
{
    if (element == m_hover)
        return;
    m_hover = element;
    emit hoverChanged();
}

void TensorDocument::updateSelected()
{
    m_selected.clear();
    m_selectedCount = 0;
    if (m_selection.kind == ElementSelection::Kind::None || !hasTensor())
        return;
    m_selected.assign(m_values.values.size(), 0);
    if (m_selection.kind == ElementSelection::Kind::Rectangle) {
        const auto cols = gridCols(), offset = gridOffset();
        for (auto r = std::max<std::int64_t>(m_selection.row0, 0); r <= std::min(m_selection.row1, gridRows() - 1); ++r)
            for (auto c = std::max<std::int64_t>(m_selection.col0, 0); c <= std::min(m_selection.col1, cols - 1); ++c) {
                m_selected[static_cast<std::size_t>(offset + r * cols + c)] = 1;
                ++m_selectedCount;
            }
        return;
    }
    if (m_selection.kind == ElementSelection::Kind::FlatRange) {
        const auto end = std::min<std::int64_t>(m_selection.last + 1, static_cast<std::int64_t>(m_selected.size()));
        for (auto k = std::max<std::int64_t>(m_selection.first, 0); k < end; ++k) {
            m_selected[static_cast<std::size_t>(k)] = 1;
            ++m_selectedCount;
        }
        return;
    }
    for (std::size_t k = 0; k < m_values.values.size(); ++k) {
        const bool in =
            (!m_specified || (*m_specified)[k]) && m_values.values[k] >= m_selection.lo && m_values.values[k] <= m_selection.hi;
        m_selected[k] = in;
        m_selectedCount += in;
    }
}

void TensorDocument::setTensor(const QString &title, const core::Tensor &tensor, std::int64_t totalRows, TensorSource source)
{
    m_title = title;
    m_source = std::move(source);
    m_totalRows = totalRows;
    const auto edits = m_edits.find(editKey(m_source));
    const bool edited = edits != m_edits.end() && !m_source.filePath.isEmpty();
    m_applications = edited ? edits->second.applications : std::vector<SparsifierApplication>{};
    m_selection = {};
    m_hover.reset();
    m_slice.assign(tensor.rank() > 2 ? static_cast<std::size_t>(tensor.rank() - 2) : 0, 0);
    setValues(edited ? edits->second.values : tensor);
    emit sparsifierChanged(); // the recipe in effect is the new dataset's
    emit applicationsChanged();
    emit selectionChanged();
    emit hoverChanged();
}

void TensorDocument::setTitle(const QString &title)
{
    if (title == m_title)
        return;
    m_title = title;
    emit titleChanged();
}

void TensorDocument::clear()
{
    m_title.clear();
    m_source = {};
    m_totalRows = 0;
    m_tensor = {};
    m_values = {};
    m_specified.reset();
    m_applications.clear(); // the shown tensor's; its edits stay in m_edits
    m_selection = {};
    m_hover.reset();
    m_slice.clear();
    updatePruned();
    updateSelected();
    emit tensorChanged();
    emit sparsifierChanged();
    emit applicationsChanged();
    emit selectionChanged();
    emit hoverChanged();
}

void TensorDocument::setValues(const core::Tensor &tensor)
{
    m_tensor = tensor;
    m_specified.reset();
    if (tensor.isMasked()) {
        // Values and specified elements from one conversion: a masked sparse tensor densified
        // once, not once for each.
        const auto n = static_cast<std::size_t>(core::numel(tensor.shape()));
        core::DenseTensor<double> values{tensor.shape(), core::Buffer<double>(n)};
        core::Mask specified(n);
        core::toDenseWithSpecifiedInto(tensor, values.values.data(), specified.data());
        m_values = std::move(values);
        m_specified = std::move(specified);
    } else {
        m_values = core::toDenseDouble(tensor);
    }
    updatePruned();
    updateSelected();
    // The preview was recomputed too: views of the preview listen to tensorChanged as well.
    emit tensorChanged();
    emit selectionChanged();
}

QString TensorDocument::datasetKey() const { return m_source.elementPath; }

std::optional<core::SparsifierConfig> TensorDocument::sparsifierFor(const QString &dataset) const
{
    const auto own = m_datasetSparsifiers.find(dataset);
    if (own != m_datasetSparsifiers.end())
        return own->second;
    return m_sparsifier;
}

bool TensorDocument::hasOwnSparsifier() const { return m_datasetSparsifiers.count(datasetKey()) > 0; }

void TensorDocument::changeOwnSparsifier(bool own)
{
    const QString dataset = datasetKey();
    if (dataset.isEmpty() || own == hasOwnSparsifier())
        return;
    if (own)
        m_undoStack.push(
            new ChangeSparsifierCommand(this, dataset, std::nullopt, sparsifier().value_or(core::SparsifierConfig{}), -1));
    else
        m_undoStack.push(new ChangeSparsifierCommand(this, dataset, sparsifier(), std::nullopt, -1));
}

void TensorDocument::changeSparsifier(std::optional<core::SparsifierConfig> config, int gesture)
{
    if (hasOwnSparsifier())
        m_undoStack.push(new ChangeSparsifierCommand(this, datasetKey(), sparsifier(), std::move(config), gesture));
    else
        m_undoStack.push(new ChangeSparsifierCommand(this, QString(), m_sparsifier, std::move(config), gesture));
}

void TensorDocument::changeAllSparsifiers(std::optional<core::SparsifierConfig> shared,
                                          std::map<QString, core::SparsifierConfig> perDataset)
{
    m_undoStack.beginMacro(tr("Set sparsifiers"));
    m_undoStack.push(new ChangeSparsifierCommand(this, QString(), m_sparsifier, std::move(shared), -1));
    const auto before = m_datasetSparsifiers;
    for (const auto &[dataset, config] : before)
        if (!perDataset.count(dataset))
            m_undoStack.push(new ChangeSparsifierCommand(this, dataset, config, std::nullopt, -1));
    for (auto &[dataset, config] : perDataset) {
        const auto old = before.find(dataset);
        m_undoStack.push(new ChangeSparsifierCommand(
            this, dataset, old == before.end() ? std::nullopt : std::optional(old->second), std::move(config), -1));
    }
    m_undoStack.endMacro();
}

std::optional<double> TensorDocument::threshold() const
{
    const auto config = sparsifier();
    if (config && config->method == core::SparsifierMethod::Threshold)
        return config->threshold;
    return std::nullopt;
}

void TensorDocument::changeThreshold(std::optional<double> threshold, int gesture)
{
    if (!threshold) {
        if (sparsifier())
            changeSparsifier(std::nullopt, gesture);
        return;
    }
    if (threshold == this->threshold())
        return;
    // The other methods' settings are kept, so switching back restores them.
    core::SparsifierConfig config = sparsifier().value_or(core::SparsifierConfig{});
    config.method = core::SparsifierMethod::Threshold;
    config.threshold = *threshold;
    changeSparsifier(config, gesture);
}

void TensorDocument::setSparsifier(const QString &dataset, const std::optional<core::SparsifierConfig> &config)
{
    if (dataset.isEmpty())
        m_sparsifier = config;
    else if (config)
        m_datasetSparsifiers[dataset] = *config;
    else
        m_datasetSparsifiers.erase(dataset);
    updatePruned();
    emit sparsifierChanged();
}

bool TensorDocument::applySparsifier()
{
    if (!hasPreview())
        return false;
    // Squash in the tensor's own dtype, so applying is exactly what `sparsity sparsify` writes.
    core::Tensor after = m_tensor.layout() == core::Layout::Dense ? m_tensor : core::toLayout(m_tensor, core::Layout::Dense);
    core::Mask kept(m_pruned.size());
    for (std::size_t i = 0; i < kept.size(); ++i)
        kept[i] = !m_pruned[i];
    std::visit(
        [&](auto &t) {
            using S = std::decay_t<decltype(t)>;
            if constexpr (std::is_same_v<S, core::DenseTensor<core::ValueOf<S>>>)
                core::applyMask(t.values.data(), kept.data(), static_cast<std::int64_t>(kept.size()));
        },
        after.storage());
    SparsifierApplication application;
    application.element = m_source.elementPath.isEmpty() ? m_title : m_source.elementPath;
    application.recipe = describeSparsifier(*sparsifier());
    application.numel = static_cast<std::int64_t>(m_values.values.size());
    application.nnzBefore = countNonzero(m_values, specified());
    application.nnzAfter = 0;
    for (std::size_t i = 0; i < m_values.values.size(); ++i)
        application.nnzAfter += (!m_specified || (*m_specified)[i]) && m_values.values[i] != 0.0 && !m_pruned[i];
    TensorEdits before{m_tensor, m_applications};
    TensorEdits edited{std::move(after), m_applications};
    edited.applications.push_back(application);
    m_undoStack.push(new ApplySparsifierCommand(this, m_source, std::move(before), std::move(edited), application.recipe));
    return true;
}

void TensorDocument::setEdits(const TensorSource &source, const TensorEdits &edits)
{
    m_edits[editKey(source)] = edits;
    if (editKey(source) != editKey(m_source)) {
        emit showRequested(source);
        return;
    }
    m_applications = edits.applications;
    setValues(edits.values);
    emit applicationsChanged();
}

std::set<std::pair<QString, QString>> TensorDocument::editedTensors(const QString &filePath) const
{
    std::set<std::pair<QString, QString>> edited;
    for (const auto &[key, edits] : m_edits)
        if (ofFile(std::get<0>(key), filePath) && !edits.applications.empty())
            edited.emplace(std::get<0>(key), std::get<1>(key));
    return edited;
}

bool TensorDocument::optimizerRunShown() const
{
    const auto &run = m_optimizerRun;
    const auto rowsLoaded = m_values.shape.empty() ? 0 : m_values.shape[0]; // a 0-d tensor has none
    return run && run->param == ElementRef{m_source.filePath, m_source.elementPath} && run->rows.begin == m_source.firstRow
           && run->rows.count() == rowsLoaded;
}

std::optional<std::size_t> TensorDocument::optimizerRunIndexOf(std::int64_t flat) const
{
    const auto &run = m_optimizerRun;
    const auto count = static_cast<std::int64_t>(m_values.values.size());
    if (!run || !(run->param == ElementRef{m_source.filePath, m_source.elementPath}) || flat < 0 || flat >= count
        || run->comparison.results.empty())
        return std::nullopt;
    if (m_values.shape.empty()) // a 0-d tensor: its one value
        return run->rows.count() == 0 ? std::optional<std::size_t>(0) : std::nullopt;
    const auto rowWidth = core::numel(m_values.shape, 1, m_values.shape.size());
    const auto row = m_source.firstRow + flat / rowWidth; // the table's
    if (row < run->rows.begin || row >= run->rows.end)
        return std::nullopt;
    const auto index = static_cast<std::size_t>((row - run->rows.begin) * rowWidth + flat % rowWidth);
    const auto &tensors = run->comparison.results[0].tensors;
    if (tensors.empty() || index >= tensors[0].second.values.size()) // the run's rows were another width
        return std::nullopt;
    return index;
}

QStringList TensorDocument::appliedRecipes() const
{
    QStringList recipes;
    for (const auto &a : m_applications)
        recipes << QStringLiteral("%1 %2: %3 -> %4 nonzeros").arg(a.element, a.recipe).arg(a.nnzBefore).arg(a.nnzAfter);
    return recipes;
}

bool TensorDocument::optimizerRunIsStale() const
{
    const auto &run = m_optimizerRun;
    // Whatever window of rows is shown: the Inspector shows a run's values in any window that
    // overlaps its rows, and that window's own edits may differ from those the run stepped.
    return run && run->param == ElementRef{m_source.filePath, m_source.elementPath} && run->appliedRecipes != appliedRecipes();
}

bool TensorDocument::optimizerRunOf(const QString &filePath) const
{
    return m_optimizerRun && ofFile(m_optimizerRun->param.file, filePath);
}

bool TensorDocument::gradcheckRunOf(const QString &filePath) const
{
    return m_gradcheckRun
           && std::any_of(m_gradcheckRun->inputs.cbegin(), m_gradcheckRun->inputs.cend(),
                          [&filePath](const ElementRef &input) { return ofFile(input.file, filePath); });
}

bool TensorDocument::hasEdits(const QString &filePath) const { return !editedTensors(filePath).empty(); }

void TensorDocument::dropEdits(const QString &filePath)
{
    if (!hasEdits(filePath))
        return;
    std::erase_if(m_edits, [&filePath](const auto &entry) { return ofFile(std::get<0>(entry.first), filePath); });
    m_undoStack.clear();
}

QStringList TensorDocument::unkeptWork(const QString &filePath, const QStringList &openFiles) const
{
    // Closing a file names it in the question; quitting names each element's file.
    const auto element = [&](const QString &file, const QString &path) {
        return filePath.isEmpty() ? tr("%1 of %2").arg(path, fileLabel(file, openFiles)) : path;
    };
    QStringList work;
    const auto edited = editedTensors(filePath);
    if (edited.size() == 1)
        work << tr("the values Apply pruned in %1").arg(element(edited.begin()->first, edited.begin()->second));
    else if (!edited.empty())
        work << tr("the values Apply pruned in %1 tensors").arg(edited.size());
    if (optimizerRunOf(filePath))
        work << tr("the Optimizer run on %1").arg(element(m_optimizerRun->param.file, m_optimizerRun->param.path));
    if (gradcheckRunOf(filePath))
        work << tr("the Gradcheck run");
    return work;
}

void TensorDocument::dropRunsOf(const QString &filePath)
{
    bool dropped = false;
    if (optimizerRunOf(filePath)) {
        setOptimizerRun(nullptr);
        dropped = true;
    }
    if (gradcheckRunOf(filePath)) {
        setGradcheckRun(nullptr);
        dropped = true;
    }
    if (dropped)
        m_undoStack.clear();
}

void TensorDocument::changeExportSettings(const ExportSettings &settings)
{
    if (settings == m_exportSettings)
        return;
    m_undoStack.push(new ChangeExportSettingsCommand(this, m_exportSettings, settings));
}

void TensorDocument::changeOptimizerRun(std::shared_ptr<const OptimizerRun> run)
{
    const QString text = run ? tr("Run %1").arg(run->description) : tr("Clear optimizer run");
    m_undoStack.push(
        new SetRunCommand<OptimizerRun>(this, &TensorDocument::setOptimizerRun, m_optimizerRun, std::move(run), text));
}

void TensorDocument::changeGradcheckRun(std::shared_ptr<const GradcheckRun> run, std::vector<JacobianPictures> pictures)
{
    m_picturedRun = run;
    m_gradcheckPictures = std::move(pictures);
    const QString text = run ? tr("Gradcheck %1").arg(run->expression) : tr("Clear gradcheck");
    m_undoStack.push(
        new SetRunCommand<GradcheckRun>(this, &TensorDocument::setGradcheckRun, m_gradcheckRun, std::move(run), text));
}

const std::vector<JacobianPictures> *TensorDocument::gradcheckPictures() const
{
    const GradcheckRun *run = m_gradcheckRun.get();
    if (run == nullptr || m_picturedRun.lock().get() != run)
        return nullptr;
    return m_gradcheckPictures.size() == run->report.inputs.size() ? &m_gradcheckPictures : nullptr;
}

void TensorDocument::setGradcheckRun(std::shared_ptr<const GradcheckRun> run)
{
    m_gradcheckRun = std::move(run);
    emit gradcheckRunChanged();
}

void TensorDocument::setOptimizerRun(std::shared_ptr<const OptimizerRun> run)
{
    m_optimizerRun = std::move(run);
    emit optimizerRunChanged();
}

void TensorDocument::setExportSettings(const ExportSettings &settings)
{
    m_exportSettings = settings;
    emit exportSettingsChanged();
}

void TensorDocument::updatePruned()
{
    m_pruned.clear();
    m_previewError.clear();
    m_previewScopeNote.clear();
    m_prunedFraction = 0.0;
    const auto config = sparsifier();
    if (!config || !hasTensor())
        return;
    core::Mask kept;
    try {
        // A recipe that ranks the whole tensor, on a window of a table's rows: the window's
        // part of the whole table's choice, as Export makes it.
        const auto &facts = core::factsOf(config->method);
        const bool window = !coverage().isEmpty();
        if (window && facts.ranksWholeTensor) {
            config->validate(); // a recipe that cannot run is said at once, not ranked first
            const auto method = QString::fromUtf8(facts.name.data(), static_cast<qsizetype>(facts.name.size()));
            const core::RowRange rows{m_source.firstRow, m_source.firstRow + m_values.shape[0]};
            auto answer = m_applications.empty()
                              ? m_wholeTable->maskOf(m_source.filePath, m_source.elementPath, rows, *config)
                              : WholeTablePreview::Answer{std::nullopt, false, tr("the loaded rows have applied edits")};
            if (answer.mask && answer.mask->size() == m_values.values.size())
                kept = std::move(*answer.mask);
            else if (answer.pending) // short-lived: the loaded rows alone meanwhile
                m_previewScopeNote = answer.why;
            else
                m_previewScopeNote = tr("%1; %2 ranked within these rows, so Export's mask here can differ")
                                         .arg(answer.mask ? tr("the table changed") : answer.why, method);
        }
        if (kept.empty())
            kept = core::computeMask(m_tensor, *config);
    } catch (const core::Error &error) {
        m_previewError = QString::fromStdString(error.what());
        return;
    }
    m_pruned.resize(kept.size());
    std::size_t pruned = 0, specified = 0;
    for (std::size_t i = 0; i < kept.size(); ++i) {
        m_pruned[i] = !kept[i];
        if (!m_specified || (*m_specified)[i]) {
            ++specified;
            pruned += m_pruned[i];
        }
    }
    m_prunedFraction = specified ? static_cast<double>(pruned) / static_cast<double>(specified) : 0.0;
}

} // namespace sparsity::ui
