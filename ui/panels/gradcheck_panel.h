#pragma once
// GradcheckPanel: an expression over tensors of the open file, checked as it is typed (a
// syntax error is shown with a caret under its column), one input chooser per name it uses,
// masked and fast toggles and eps. Run becomes a GradcheckPanelRequest the main window runs
// as a background job (core::gradcheckFile, as `sparsity gradcheck`); the result lands in the
// document (undoable) and the panel shows it: verdict, numerical / analytical / difference
// Jacobian heatmaps per input, and the mismatches with the reasons for them.
#include "core/autograd/gradcheck.h"

#include <QMap>
#include <QStringList>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QListWidget;

namespace sparsity::ui {

class MatrixView;
class TensorDocument;

struct GradcheckPanelRequest {
    QString expression;
    QMap<QString, QString> inputs;   // name -> element path in the document's file
    core::GradcheckOptions options;
};

class GradcheckPanel : public QWidget {
    Q_OBJECT

public:
    explicit GradcheckPanel(TensorDocument *document, QWidget *parent = nullptr);

    void setElements(const QStringList &elements);
    GradcheckPanelRequest request() const;
    // The syntax check's message: empty when the expression parses.
    QString expressionError() const;
    QListWidget *findings() const { return m_findings; }
    MatrixView *numericalView() const { return m_numerical; }
    MatrixView *analyticalView() const { return m_analytical; }
    MatrixView *differenceView() const { return m_difference; }

signals:
    void runRequested(const sparsity::ui::GradcheckPanelRequest &request);

private:
    void checkExpression();
    void showRun();
    void showInput();

    TensorDocument *m_document;
    QStringList m_elements;
    QLineEdit *m_expression;
    QLabel *m_error;
    QWidget *m_inputsBox;
    QFormLayout *m_inputsForm;
    QMap<QString, QComboBox *> m_inputChoosers;
    QCheckBox *m_masked, *m_fast;
    QDoubleSpinBox *m_eps;
    QLabel *m_verdict;
    QComboBox *m_input;
    MatrixView *m_numerical, *m_analytical, *m_difference;
    QListWidget *m_findings;
};

} // namespace sparsity::ui
