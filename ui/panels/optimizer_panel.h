#pragma once
// OptimizerPanel: the same optimizer steps under two or three semantics, side by side. The
// form (optimizer, rule, hyperparameters, semantics, gradients and mask from the open file)
// becomes an OptimizerRequest the main window runs as a background job; the result lands in
// the document (undoable) and the panel shows it: a divergence table and one view of any
// parameter, state, row staleness or difference between semantics.
#include "ui/document/optimizer_run.h"

#include <QComboBox>
#include <QPointer>
#include <QStringList>
#include <QWidget>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QScrollArea;
class QTableView;

namespace sparsity::ui {

class DivergenceModel;
class MatrixView;
class TensorDocument;

// An element of the document's file offered as a gradient or a mask, with its shape: only
// those of the parameter's shape can be chosen.
struct OfferedElement {
    QString path;
    core::Shape shape;
};

class OptimizerPanel : public QWidget {
    Q_OBJECT

public:
    explicit OptimizerPanel(TensorDocument *document, QWidget *parent = nullptr);
    ~OptimizerPanel() override;

    // The elements of the document's file the gradients and the mask are chosen from. Those
    // whose shape is not the parameter's (the tensor shown) are listed greyed out, saying why.
    void setElements(const std::vector<OfferedElement> &elements);
    // What Run takes: the gradients ticked and the mask chosen among those that fit the
    // parameter shown.
    OptimizerRequest request() const;
    // The form as the user set it, ticks that do not fit the tensor shown included: what a
    // workspace keeps.
    OptimizerRequest choices() const;
    // Puts a request (a workspace's) into the form; gradients and mask not in the file are
    // left unchecked.
    void setRequest(const OptimizerRequest &request);
    DivergenceModel *divergenceModel() const { return m_divergence; }
    MatrixView *matrixView() const { return m_matrix; }
    // The device the runs use (cpu, cuda where present), for the main window's toolbar.
    QComboBox *deviceChooser() const { return m_device.data(); }
    // A run that was refused or failed: said in the panel.
    void showFailure(const QString &error);
    // The document's run (none: the panel's prompt), as after a cancelled run.
    void showRun();

signals:
    void runRequested(const sparsity::ui::OptimizerRequest &request);
    // Any change of the form (what choices() gives): the workspace has changed.
    void choicesChanged();

protected:
    void showEvent(QShowEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void fitGradientList();
    // Enables the hyperparameters the optimizer has under the rule (core::parametersOf), and
    // shows the rule's defaults in the empty ones.
    void offerParameters();
    OptimizerRequest fieldValues() const;
    // Says, under Run, why the form as it stands cannot run (a field that is not a number, no
    // semantics ticked, or what resolveOptions refuses for a semantics ticked) and disables Run
    // until it can: weight decay with lazy torch semantics, say, is refused as it is typed
    // rather than after Run. A change of the form also clears a refused Run's message.
    void checkForm();

    void showChosenView();
    void showSummary(); // the run's description, and whether it is stale
    // Greys out the gradients and masks that do not have the parameter's shape.
    void markUnfitElements();
    // Why `path` cannot be the shown parameter's gradient or mask; empty when it can.
    QString unfitReason(const QString &path) const;

    TensorDocument *m_document;
    QComboBox *m_optimizer, *m_rule, *m_mask, *m_view;
    QPointer<QComboBox> m_device;
    QDoubleSpinBox *m_lr, *m_weightDecay, *m_momentum;
    QLineEdit *m_beta1, *m_beta2, *m_eps; // empty: the rule's default
    QCheckBox *m_dense, *m_lazy, *m_masked;
    QListWidget *m_gradients;
    QPushButton *m_run;
    QLabel *m_formProblem; // why the form cannot run; hidden when it can
    QLabel *m_summary;     // the run shown, or why the last request did not run
    QScrollArea *m_scroll; // the form, then m_results
    QWidget *m_results;    // the divergence table, the view chosen and its matrix
    DivergenceModel *m_divergence;
    QTableView *m_divergenceView;
    MatrixView *m_matrix;
    std::vector<OfferedElement> m_elements;
    QStringList m_ticked;       // gradients ticked, listed or not, in the order ticked
    QString m_maskChoice;       // empty: none
    bool m_failed = false;      // the summary says why the last request did not run
    bool m_awaitingRun = false; // Run was pressed: its run, when shown, is scrolled to
};

} // namespace sparsity::ui
