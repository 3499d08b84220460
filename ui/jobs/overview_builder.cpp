#include "ui/jobs/overview_builder.h"

#include "core/io/element_rows.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/errors.h"

#include <algorithm>

namespace sparsity::ui {

OverviewBuilder::OverviewBuilder(QObject *parent) : QObject(parent)
{
    m_timer.setInterval(0);
    connect(&m_timer, &QTimer::timeout, this, &OverviewBuilder::step);
}

void OverviewBuilder::start(const ElementRef &element, std::int64_t totalRows, std::int64_t cols)
{
    stop();
    m_element = element;
    m_overview = RowOverview(totalRows, cols, kBins);
    m_nextRow = 0;
    m_chunkRows = std::max<std::int64_t>(1, (std::int64_t{1} << 20) / std::max<std::int64_t>(cols, 1));
    m_timer.start();
}

void OverviewBuilder::stop()
{
    m_timer.stop();
    m_rows.reset(); // before the file it reads
    m_file.reset();
}

void OverviewBuilder::step()
{
    try {
        if (!m_file) {
            m_file.emplace(core::H5File::openRead(m_element.file.toStdString()));
            m_rows.emplace(*m_file, m_element.path.toStdString());
        }
        const auto end = std::min(m_overview.totalRows(), m_nextRow + m_chunkRows);
        const auto rows = m_rows->readRows(core::RowRange{m_nextRow, end});
        // float32 tables (the common case) are pooled as read; anything else as double.
        if (const auto *f32 = std::get_if<core::DenseTensor<float>>(&rows.storage())) {
            m_overview.addRows(m_nextRow, f32->values.data(), f32->numel());
        } else {
            const auto dense = core::toDenseDouble(rows);
            m_overview.addRows(m_nextRow, dense.values.data(), dense.numel());
        }
        m_nextRow = end;
    } catch (const core::Error &error) {
        stop();
        emit failed(QString::fromStdString(error.what()));
        return;
    }
    emit progressed();
    if (m_nextRow >= m_overview.totalRows()) {
        stop();
        emit finished();
    }
}

} // namespace sparsity::ui
