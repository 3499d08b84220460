#pragma once
// The whole table's choice that the Sparsifier's preview of a window of rows takes under a
// recipe that ranks the whole tensor (data-norm's blocks, row-norm's rows; the methods'
// ranksWholeTensor), so that the window previews what Export writes in those rows: a
// core::WholeTensorChoice, computed on a pool thread once per table and per data-norm block
// shape and norm, then reused for every level and every window. The latest request wins: one
// superseded while it runs is cancelled.
#include "core/pipeline/whole_tensor_choice.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>
#include <optional>

namespace sparsity::ui {

class WholeTablePreview : public QObject {
    Q_OBJECT

public:
    explicit WholeTablePreview(QObject *parent = nullptr);
    ~WholeTablePreview() override;

    // The mask of rows `rows` of `element` of `file` under `config`, when the whole table's
    // choice for it is at hand. Otherwise no mask, and either pending (it is being computed:
    // ready() follows) or refused, with why (the table is too large to rank for a preview).
    struct Answer {
        std::optional<core::Mask> mask;
        bool pending = false;
        QString why;
    };
    Answer maskOf(const QString &file, const QString &element, core::RowRange rows, const core::SparsifierConfig &config);
    bool isComputing() const { return m_watcher.isRunning(); }

signals:
    void ready(); // a choice was computed, or refused: ask maskOf() again

private:
    struct Request {
        QString file, element;
        core::SparsifierConfig config;
        bool covers(const QString &f, const QString &e, const core::SparsifierConfig &c) const;
    };
    struct Outcome {
        std::shared_ptr<const core::WholeTensorChoice> choice;
        QString error; // why it was refused; empty when computed or cancelled
    };
    void start(const Request &request);
    void onFinished();

    std::optional<Request> m_done; // what m_choice (or m_refusal) answers
    std::shared_ptr<const core::WholeTensorChoice> m_choice;
    QString m_refusal;
    std::optional<Request> m_running;            // what m_watcher computes
    std::optional<Request> m_queued;             // asked while another ran
    std::shared_ptr<std::atomic<bool>> m_cancel; // the running computation's
    QFutureWatcher<Outcome> m_watcher;
};

} // namespace sparsity::ui
