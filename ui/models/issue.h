#pragma once
// Issue: one thing the user should hear about — a load or job that failed (Error), or what
// core noticed while reading or validating data (Warning, Note: indices sorted, dtypes
// converted, objects skipped; the CLI prints these as "warning:" / "note:" lines). Where it
// is known, the issue names the file and element it concerns, so the Issues dock can show
// the place in a column of its own and jump to it.
#include "ui/document/element_ref.h"

#include <QDateTime>
#include <QString>

namespace sparsity::ui {

struct Issue {
    enum class Severity { Error, Warning, Note };

    Severity severity = Severity::Error;
    // file: an absolute path (an HDF5 file, or the workspace or batch file concerned);
    // path: an HDF5 element in it. Either may be empty.
    ElementRef location;
    QString text;    // what happened, without the location (summary() puts them together)
    QDateTime time;  // when it was reported; IssuesModel::add stamps it when unset
    int repeats = 1; // reported this many times in a row (IssuesModel::add folds repeats)

    // "sample.h5:/emb", "sample.h5", "/emb" or empty: the file by name only, for a column.
    QString locationText() const;
    // "/data/sample.h5:/emb": the file by its full path.
    QString fullLocation() const;
    // "/data/sample.h5:/emb: text": the whole message, as core words it.
    QString summary() const;
    bool operator==(const Issue &) const = default;
};

QString severityName(Issue::Severity severity); // "Error", "Warning", "Note"

} // namespace sparsity::ui
