#pragma once
// The whole table's choice that the Sparsifier's preview of a window of rows takes under a
// recipe that ranks the whole tensor (data-norm's blocks, row-norm's rows; the methods'
// ranksWholeTensor), so that the window previews what Export writes in those rows. The choice
// (core::WholeTensorChoice: every block's score or row's norm) is computed on a pool thread once
// per table and per data-norm block shape and norm, and kept; each window and level is then
// chosen and masked on a pool thread too (over a large table's scores that takes a while), so the
// window never waits. The table is known by its file's identity and modification time: a file
// replaced or rewritten (an Export onto it) is ranked again. One request at a time: a later one
// waits for the one running, which is cancelled only when its choice cannot serve the later one
// (another table, block shape or norm); only the latest request waiting is kept.
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

    // The mask of rows `rows` of `element` of `file` under `config`, when it is at hand.
    // Otherwise no mask, and either pending (being computed: ready() follows) or refused, with
    // why (the table is too large to rank for a preview, or could not be read).
    struct Answer {
        std::optional<core::Mask> mask;
        bool pending = false;
        QString why;
    };
    Answer maskOf(const QString &file, const QString &element, core::RowRange rows, const core::SparsifierConfig &config);

signals:
    void ready(); // a mask was computed, or refused: ask maskOf() again

private:
    // A file as last seen: its identity, size and modification time.
    struct FileStamp {
        std::uint64_t device = 0, inode = 0;
        std::int64_t size = 0, modifiedNs = 0;
        bool operator==(const FileStamp &) const = default;
    };
    struct Request {
        QString file, element;
        FileStamp stamp;
        core::RowRange rows;
        core::SparsifierConfig config;
        bool operator==(const Request &other) const;
        // Whether a choice made for this request serves `other` (the same table as stamped, and
        // the same method, blocks and norm).
        bool sameChoiceAs(const Request &other) const;
    };
    struct Outcome {
        std::shared_ptr<const core::WholeTensorChoice> choice; // null when refused or cancelled
        core::Mask mask;
        QString error; // why it was refused; empty when computed or cancelled
    };
    static FileStamp stampOf(const QString &file);
    void start(const Request &request);
    void onFinished();

    // The last answer (a mask, or why not) and the choice kept for its table.
    std::optional<Request> m_answered;
    Outcome m_answer;
    std::optional<Request> m_running;            // what m_watcher computes
    std::optional<Request> m_queued;             // asked while another ran
    std::shared_ptr<std::atomic<bool>> m_cancel; // the running computation's
    QFutureWatcher<Outcome> m_watcher;
};

} // namespace sparsity::ui
