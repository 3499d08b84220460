#pragma once
// GradcheckPanel: an expression over tensors of the open files, checked as it is typed (a
// syntax error is shown with a caret under its column), one input chooser per name it uses
// (the shown tensor's file first, as "/path"; other open files as "file.h5:/path"), bound by
// file and path so a binding survives files opening and closing and the shown tensor changing,
// masked and fast toggles and eps. Run becomes a GradcheckPanelRequest the main window runs
// as a background job (core::gradcheckFile, as `sparsity gradcheck`); the result lands in the
// document (undoable) and the panel shows it: verdict, numerical / analytical / difference
// Jacobian heatmaps per input, and the mismatches with the reasons for them.
#include "ui/document/gradcheck_run.h"

#include <QMap>
#include <QStringList>
#include <QWidget>
#include <optional>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QListWidget;

namespace sparsity::ui {

enum class CellLink;
class MatrixView;
class TensorDocument;

class GradcheckPanel : public QWidget {
    Q_OBJECT

public:
    explicit GradcheckPanel(TensorDocument *document, QWidget *parent = nullptr);

    // The elements inputs can be bound to: those of `currentFile` (the tensor shown) are
    // listed first and by path alone.
    void setElements(const QList<ElementRef> &elements, const QString &currentFile);
    GradcheckPanelRequest request() const;
    // Puts a request (a workspace's) into the form; an input whose element is not open keeps
    // its default binding.
    void setRequest(const GradcheckPanelRequest &request);
    // The syntax check's message: empty when the expression parses.
    QString expressionError() const;
    // Why Check cannot run as bound (an input bound to nothing or to a file not open); empty
    // when it can.
    QString unboundInputs() const;
    // A run that failed or was refused: said in the panel, any older verdict and Jacobians gone.
    void showFailure(const QString &error);
    // The document's run (none: the panel's prompt), as after a cancelled run.
    void showRun();
    QLabel *verdict() const { return m_verdict; }
    QListWidget *findings() const { return m_findings; }
    MatrixView *numericalView() const { return m_numerical; }
    MatrixView *analyticalView() const { return m_analytical; }
    MatrixView *differenceView() const { return m_difference; }

signals:
    void runRequested(const sparsity::ui::GradcheckPanelRequest &request);
    // Any change of the form (what request() gives): the workspace has changed.
    void choicesChanged();

private:
    void checkExpression();
    // How the Jacobians' rows link to the tensor shown (ElementRows when the input is it).
    CellLink linkToShown() const;
    void relink();
    // The element an input name binds to until one is chosen: "/name" of the shown tensor's
    // file, else of another open file; none when no open file has one.
    std::optional<ElementRef> elementNamed(const QString &name) const;
    // The element the first input name without one of its name binds to: the tensor shown (the
    // first element when that is not open); none when no file is open.
    std::optional<ElementRef> fallbackElement() const;
    void addElementItem(QComboBox *chooser, const ElementRef &element, const QString &suffix) const;
    void showVerdict(const QString &text, const QString &colour);
    void showInput();

    TensorDocument *m_document;
    QList<ElementRef> m_elements;
    QString m_currentFile;
    QLineEdit *m_expression;
    QLabel *m_error;
    QWidget *m_inputsBox;
    QFormLayout *m_inputsForm;
    QMap<QString, QComboBox *> m_inputChoosers;
    // name -> the element the user chose (or the default it first got); kept while the
    // expression changes and files open and close.
    QMap<QString, ElementRef> m_bindings;
    QCheckBox *m_masked, *m_fast;
    QDoubleSpinBox *m_eps;
    QLabel *m_verdict;
    QComboBox *m_input;
    MatrixView *m_numerical, *m_analytical, *m_difference;
    QListWidget *m_findings;
};

} // namespace sparsity::ui
