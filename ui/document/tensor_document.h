#pragma once
// TensorDocument: the tensor being looked at and the sparsifier recipe applied to it (Tiled's
// MapDocument, in small). It owns the loaded values, the specified mask, the sparsifier
// recipes (a shared one and datasets' own, which Export and Save as batch run on the whole
// file; the one in effect for the tensor shown is previewed), the sparsifier
// applications made to the loaded values, the export settings, the Optimizer and Gradcheck
// panels' last runs, the shared selection and hover, and the undo stack every
// change goes through. Views never talk to each other: they read the document, change it
// through commands, and repaint on its signals.
#include "core/sparsify/sparsifier_config.h"
#include "core/tensor/tensor.h"
#include "ui/document/gradcheck_run.h"
#include "ui/document/optimizer_run.h"
#include "ui/document/whole_table_preview.h"
#include "ui/views/jacobian_pictures.h"

#include <QObject>
#include <QStringList>
#include <QUndoStack>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

namespace sparsity::ui {

// Where the document's tensor comes from: an element of a file, from row firstRow on (a
// tensor too large to load whole is looked at a window of rows at a time).
struct TensorSource {
    QString filePath;
    QString elementPath;
    std::int64_t firstRow = 0;
};

// The edits applied to one tensor (its values after them and the report rows), kept while
// the user looks at other tensors and given back when it is shown again.
struct TensorEdits;

// One Apply of the sparsifier to the loaded values (a row of the report table).
struct SparsifierApplication {
    QString element;
    QString recipe; // "threshold T=0.5", "n-m 2:4", ...
    std::int64_t numel = 0;
    std::int64_t nnzBefore = 0;
    std::int64_t nnzAfter = 0;
};

struct TensorEdits {
    core::Tensor values;
    std::vector<SparsifierApplication> applications;
};

// What Export and Save as batch write besides the sparsifier: which datasets of the file
// (empty: every numeric one), the output layout (sparsify's --layout) and the gzip level.
struct ExportSettings {
    QStringList datasets;
    QString layout = QStringLiteral("dense");
    int gzipLevel = 0;
    bool operator==(const ExportSettings &) const = default;
};

// What is selected: a rectangle of the document's [rows x cols] grid (in the slice shown,
// for N-d tensors; rows are a rectangle spanning every column), a value range — the
// specified elements with lo <= x <= hi anywhere in the tensor — or a run of elements in
// row-major order (rows of a Jacobian are the input's elements in that order).
struct ElementSelection {
    enum class Kind { None, Rectangle, ValueRange, FlatRange };
    Kind kind = Kind::None;
    std::int64_t row0 = 0, row1 = -1, col0 = 0, col1 = -1; // inclusive
    double lo = 0.0, hi = -1.0;
    std::int64_t first = 0, last = -1; // inclusive flat indices

    static ElementSelection rectangle(std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1);
    static ElementSelection valueRange(double lo, double hi);
    static ElementSelection flatRange(std::int64_t first, std::int64_t last);
    bool operator==(const ElementSelection &) const = default;
};

// Short human form of a sparsifier config ("data-norm 1x4 L1 level 0.5").
QString describeSparsifier(const core::SparsifierConfig &config);

class TensorDocument : public QObject {
    Q_OBJECT

public:
    explicit TensorDocument(QObject *parent = nullptr);

    // Shows `tensor` (the rows loaded for viewing; `totalRows` is the whole tensor's). Not an
    // undoable change: choosing what to look at is navigation. Edits applied to `source`
    // before (kept while other tensors were shown) come back with it, and the undo history
    // stays: undoing an edit of another tensor shows that tensor again (showRequested).
    void setTensor(const QString &title, const core::Tensor &tensor, std::int64_t totalRows, TensorSource source = {});
    void clear();

    bool hasTensor() const { return !m_values.values.empty() || !m_values.shape.empty(); }
    const QString &title() const { return m_title; }
    // The shown tensor's title changes alone (its file was relabelled: another of its name opened).
    void setTitle(const QString &title);
    const TensorSource &source() const { return m_source; }
    std::int64_t totalRows() const { return m_totalRows; }
    // Which rows the loaded values (and so every statistic of them) cover: "rows 0–65535 of
    // 70000" for a table loaded a window at a time; empty when the whole tensor is loaded.
    QString coverage() const;
    const core::Tensor &tensor() const { return m_tensor; }
    const core::DenseTensor<double> &values() const { return m_values; }
    const core::Mask *specified() const { return m_specified ? &*m_specified : nullptr; }
    // "[12, 40]": the loaded element `flat` in the whole tensor's coordinates (the loaded rows
    // start at source().firstRow).
    QString coordinatesOf(std::int64_t flat) const;
    // One line on the loaded element `flat`: "[12, 40] = 0.53", "[3, 1] unspecified", with
    // "pruned by the preview" or "kept by the preview" while a recipe is previewed (tooltips).
    QString describeElement(std::int64_t flat) const;

    // The sparsifier recipe in effect for the tensor shown, previewed on the loaded values:
    // its dataset's own recipe if it has one, else the shared recipe; nullopt: none.
    std::optional<core::SparsifierConfig> sparsifier() const { return sparsifierFor(datasetKey()); }
    // The recipe in effect for any dataset (element path): its own, else the shared one.
    std::optional<core::SparsifierConfig> sparsifierFor(const QString &dataset) const;
    // The recipe for every dataset without its own (BATCH.json's "sparsify").
    const std::optional<core::SparsifierConfig> &sharedSparsifier() const { return m_sparsifier; }
    // Datasets (element paths, of whichever file is exported) with their own recipe
    // (BATCH.json's "sparsify.per_dataset").
    const std::map<QString, core::SparsifierConfig> &datasetSparsifiers() const { return m_datasetSparsifiers; }
    // Whether the tensor shown has its own recipe, and the undoable switch between its own
    // (starting as a copy of the recipe in effect) and the shared one (its own is dropped).
    bool hasOwnSparsifier() const;
    void changeOwnSparsifier(bool own);
    // Changes the recipe in effect (the tensor's own, or the shared one) as an undoable step;
    // consecutive changes of one `gesture` (a mouse drag, one spin box being edited) merge
    // into one undo step. gesture < 0 never merges. nullopt drops the tensor's own recipe,
    // or clears the shared one.
    void changeSparsifier(std::optional<core::SparsifierConfig> config, int gesture = -1);
    // Replaces every recipe at once (opening a workspace), as one undoable step.
    void changeAllSparsifiers(std::optional<core::SparsifierConfig> shared, std::map<QString, core::SparsifierConfig> perDataset);
    // The threshold when the recipe is the threshold sparsifier (the histogram's lines).
    std::optional<double> threshold() const;
    // Makes the recipe the threshold sparsifier with threshold T (nullopt clears the recipe).
    void changeThreshold(std::optional<double> threshold, int gesture = -1);

    // One byte per loaded element, 1 where the recipe prunes; empty without a recipe or when
    // the recipe does not fit the tensor (previewError() says why).
    const core::Mask &pruned() const { return m_pruned; }
    bool hasPreview() const { return !m_pruned.empty(); }
    const QString &previewError() const { return m_previewError; }
    // Empty when the preview is what Export writes in the loaded rows. Else why it is not: a
    // recipe that ranks the whole tensor previews the loaded rows of a table loaded a window at a
    // time with the whole table's choice, once that is computed in the background ("ranking the
    // whole table…" until then), and ranks the loaded rows alone when they have applied edits or
    // the table is too large to rank for a preview (the note says so).
    const QString &previewScopeNote() const { return m_previewScopeNote; }
    // Pruned specified elements over specified elements (0 without a preview).
    double prunedFraction() const { return m_prunedFraction; }

    // Applies the previewed recipe to the loaded values (undoable): pruned elements become 0.
    // False (and nothing changes) without a preview.
    bool applySparsifier();
    const std::vector<SparsifierApplication> &applications() const { return m_applications; }
    // Whether any tensor (of `filePath`, when given) has applied edits.
    bool hasEdits(const QString &filePath = {}) const;
    // Forgets the edits of `filePath`'s tensors (the file was closed; every tensor's when not
    // given) and, as its undo steps could not be replayed, the undo history. The values shown
    // stay as they are until the tensor is read again.
    void dropEdits(const QString &filePath = {});
    // Forgets the optimizer and gradcheck results computed from `filePath`'s tensors (the file
    // was closed: shown, they would describe data no longer open) and, when there was one, the
    // undo history, whose steps would bring them back.
    void dropRunsOf(const QString &filePath);
    // What a workspace does not keep and closing `filePath` (every file when not given) would
    // lose, for the question before it: "the values Apply pruned in 2 tensors", "the Optimizer
    // run on /emb", "the Gradcheck run". Empty: nothing. Without a file, every file's, each
    // element named with its file's label among `openFiles` ("/emb of sample.h5").
    QStringList unkeptWork(const QString &filePath = {}, const QStringList &openFiles = {}) const;

    // The [rows x cols] grid the views draw: a 2-d tensor as it is, a 1-d one as one row, and
    // an N-d one (rank >= 3) as the 2-d slice over its last two dims at slice(), one index
    // per leading dim. Choosing a slice is navigation, not an undoable change.
    std::int64_t gridRows() const;
    std::int64_t gridCols() const;
    const std::vector<std::int64_t> &slice() const { return m_slice; }
    void setSlice(std::size_t dim, std::int64_t index);
    // Flat index of the grid's element [0, 0] in values().
    std::int64_t gridOffset() const;

    // Selection and hover are view state shared by every view, not document content: they
    // are not undoable (Tiled keeps object selection out of the undo stack too).
    void setSelection(const ElementSelection &selection);
    const ElementSelection &selection() const { return m_selection; }
    // One byte per loaded element, 1 where selected; empty without a selection.
    const core::Mask &selected() const { return m_selected; }
    std::int64_t selectedCount() const { return m_selectedCount; }
    // The element under the mouse (flat index into values()), if any.
    void setHover(std::optional<std::int64_t> element);
    std::optional<std::int64_t> hover() const { return m_hover; }

    // The Optimizer panel's last run (undoable); null before the first.
    const std::shared_ptr<const OptimizerRun> &optimizerRun() const { return m_optimizerRun; }
    // Whether the Optimizer's run stepped the rows shown: the tensor shown, and the same window of
    // rows of a table loaded a window at a time. Only then do its results link to the views.
    bool optimizerRunShown() const;
    // Where the loaded element `flat` is in the Optimizer run's tensors, when the run stepped it
    // (the tensor shown, and the element's row among the rows the run stepped); else nullopt.
    std::optional<std::size_t> optimizerRunIndexOf(std::int64_t flat) const;
    // The Applys in effect on the values shown, one line each: what a run records of the
    // parameter it started from.
    QStringList appliedRecipes() const;
    // Whether the run stepped the tensor shown from values other than those shown (an Apply or
    // its Undo since, or another window of rows with other Applys): its results are not those
    // of the values shown.
    bool optimizerRunIsStale() const;
    void changeOptimizerRun(std::shared_ptr<const OptimizerRun> run);
    // The Gradcheck panel's last run (undoable); null before the first. `pictures`, one per
    // input of its report, are its Jacobians' maps made with it on the job's thread.
    const std::shared_ptr<const GradcheckRun> &gradcheckRun() const { return m_gradcheckRun; }
    void changeGradcheckRun(std::shared_ptr<const GradcheckRun> run, std::vector<JacobianPictures> pictures = {});
    // The maps made with the current run, or null (a run that came back by undo: the panel
    // makes them again). Only the latest run's are kept, outside the undo history: the maps of
    // one 64 x 64 check are 576 MiB.
    const std::vector<JacobianPictures> *gradcheckPictures() const;

    const ExportSettings &exportSettings() const { return m_exportSettings; }
    void changeExportSettings(const ExportSettings &settings);

    QUndoStack *undoStack() { return &m_undoStack; }
    // A fresh gesture id for changeSparsifier (views start one per drag or edited field).
    int newGesture() { return m_nextGesture++; }

    // Called by the commands only; views and panels use the change* functions above.
    // `dataset` empty: the shared recipe; else that dataset's own (nullopt: none of its own).
    void setSparsifier(const QString &dataset, const std::optional<core::SparsifierConfig> &config);
    void setValues(const core::Tensor &tensor);
    // The edits of `source` become `edits`: shown when it is the tensor shown, else kept and
    // showRequested(source) asks for it to be shown.
    void setEdits(const TensorSource &source, const TensorEdits &edits);
    void setExportSettings(const ExportSettings &settings);
    void setOptimizerRun(std::shared_ptr<const OptimizerRun> run);
    void setGradcheckRun(std::shared_ptr<const GradcheckRun> run);

signals:
    void tensorChanged();     // a new tensor, or its values changed (apply, undo); its preview too
    void titleChanged();      // the same tensor, named anew (setTitle)
    void sparsifierChanged(); // the recipe or its preview changed
    void applicationsChanged();
    void exportSettingsChanged();
    void selectionChanged();
    void sliceChanged();
    void hoverChanged();
    void optimizerRunChanged();
    void gradcheckRunChanged();
    // An undo or redo changed a tensor that is not shown: the main window shows it.
    void showRequested(const sparsity::ui::TensorSource &source);

private:
    void updatePruned();
    QString datasetKey() const; // the tensor shown, as a key of m_datasetSparsifiers
    void updateSelected();
    // (file, element) of the tensors of `filePath` (every file when empty) with applied edits.
    std::set<std::pair<QString, QString>> editedTensors(const QString &filePath) const;
    // Whether the optimizer run, or the gradcheck run, was computed from `filePath`'s tensors
    // (from any file when empty); false without one.
    bool optimizerRunOf(const QString &filePath) const;
    bool gradcheckRunOf(const QString &filePath) const;

    QString m_title;
    TensorSource m_source;
    std::int64_t m_totalRows = 0;
    core::Tensor m_tensor;
    core::DenseTensor<double> m_values;
    std::optional<core::Mask> m_specified;
    std::optional<core::SparsifierConfig> m_sparsifier;
    std::map<QString, core::SparsifierConfig> m_datasetSparsifiers;
    core::Mask m_pruned;
    QString m_previewError;
    QString m_previewScopeNote;
    WholeTablePreview *m_wholeTable = nullptr;
    double m_prunedFraction = 0.0;
    std::vector<SparsifierApplication> m_applications;
    // (file, element, first row) -> the edits applied to that tensor.
    std::map<std::tuple<QString, QString, std::int64_t>, TensorEdits> m_edits;
    ExportSettings m_exportSettings;
    std::shared_ptr<const OptimizerRun> m_optimizerRun;
    std::shared_ptr<const GradcheckRun> m_gradcheckRun;
    std::weak_ptr<const GradcheckRun> m_picturedRun; // the run m_gradcheckPictures were made with
    std::vector<JacobianPictures> m_gradcheckPictures;
    std::vector<std::int64_t> m_slice;
    ElementSelection m_selection;
    core::Mask m_selected;
    std::int64_t m_selectedCount = 0;
    std::optional<std::int64_t> m_hover;
    QUndoStack m_undoStack;
    int m_nextGesture = 0;
};

} // namespace sparsity::ui
