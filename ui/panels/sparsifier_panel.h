#pragma once
// SparsifierPanel: the sparsifier recipe of the document — shared by every dataset or the
// tensor's own ("Applies to"), method and parameters, a live
// preview (the heatmap and histogram show what it prunes), a schedule curve whose level at a
// chosen step can be taken as the sparsity level, Apply (undoable) and the report of what was
// applied. Every edit goes to the document as a command (one undo step per edited field);
// the widgets follow the document, so undo and the histogram drag update them.
#include "core/sparsify/sparsifier_config.h"

#include <QWidget>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class QTableView;

namespace sparsity::ui {

class ScheduleChart;
class SparsifierParameterField;
class SparsifyReportModel;
class TensorDocument;

class SparsifierPanel : public QWidget {
    Q_OBJECT

public:
    explicit SparsifierPanel(TensorDocument *document, QWidget *parent = nullptr);

    SparsifyReportModel *reportModel() const { return m_report; }
    // The recipe's parameter fields, every method's: each change of one is a document edit.
    QWidget *recipeFields() const;

private:
    // The method's form: one field per parameter of the table (sparsifier_parameters.h).
    QWidget *methodPage(core::SparsifierMethod method);
    QWidget *scheduleBox();
    // Sends the widgets' recipe to the document; `field` groups edits into undo steps.
    void edited(int field);
    void showDocument();
    void updateSchedule();
    void useScheduleLevel();
    // The method's recipe from its fields; the InputError of a field whose text is not a value.
    core::SparsifierConfig recipeOfFields(core::SparsifierMethod method) const;

    TensorDocument *m_document;
    int m_lastField = -1, m_gesture = -1;
    QComboBox *m_scope;
    QLabel *m_ownRecipes;
    QComboBox *m_method;
    QStackedWidget *m_pages;
    std::vector<SparsifierParameterField *> m_fields; // every method's, in the table's order
    QLineEdit *m_schedule;
    QSpinBox *m_scheduleSteps, *m_atStep;
    QLabel *m_scheduleStatus;
    ScheduleChart *m_scheduleChart;
    QPushButton *m_useLevel;
    QLabel *m_status;
    QPushButton *m_apply;
    SparsifyReportModel *m_report;
    QTableView *m_reportView;
};

} // namespace sparsity::ui
