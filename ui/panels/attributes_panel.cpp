#include "ui/panels/attributes_panel.h"

#include "core/io/h5_attribute_list.h"
#include "core/util/errors.h"
#include "ui/models/attribute_table_model.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace sparsity::ui {

AttributesPanel::AttributesPanel(QWidget *parent)
    : QWidget(parent), m_model(new AttributeTableModel(this)), m_object(new QLabel), m_table(new QTableView)
{
    m_object->setObjectName(QStringLiteral("attributes.object"));
    m_object->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // A long path must not widen the dock past the screen.
    m_object->setWordWrap(true);
    m_table->setObjectName(QStringLiteral("attributes.table"));
    m_table->setModel(m_model);
    m_table->setAlternatingRowColors(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    // One line per attribute: the dock shares a short tab with the Inspector.
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setSectionResizeMode(AttributeTableModel::Name, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(AttributeTableModel::Type, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_object);
    layout->addWidget(m_table, 1);
    clear();
}

bool AttributesPanel::showObject(const QString &filePath, const QString &objectPath)
{
    const QString where = QStringLiteral("%1:%2").arg(QFileInfo(filePath).fileName(), objectPath);
    try {
        const auto file = core::H5File::openRead(filePath.toStdString());
        auto attributes = core::listAttributes(file, objectPath.toStdString());
        m_object->setText(attributes.size() == 1 ? tr("%1 — 1 attribute").arg(where)
                                                 : tr("%1 — %2 attributes").arg(where).arg(attributes.size()));
        m_model->setAttributes(std::move(attributes));
        m_error.clear();
        return true;
    } catch (const core::Error &error) {
        m_model->setAttributes({});
        m_error = QString::fromStdString(error.what());
        m_object->setText(tr("%1 — cannot read its attributes: %2").arg(where, m_error));
        return false;
    }
}

void AttributesPanel::clear()
{
    m_model->setAttributes({});
    m_error.clear();
    m_object->setText(tr("Select a file or tensor in the Files panel to see its attributes."));
}

QString AttributesPanel::objectText() const { return m_object->text(); }

} // namespace sparsity::ui
