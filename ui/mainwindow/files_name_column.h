#pragma once
// The Files tree's Name column, as wide as its elements' names need and no wider for a long
// file name: a file row takes at most kFileNameRoom pixels and ends in "…" past them (its
// tooltip is the whole path). Sized to every row's contents, one long file name pushed the
// Layout, Shape, dtype and nnz columns out of a 1280x720 window's dock.
class QTreeView;

namespace sparsity::ui {

inline constexpr int kFileNameRoom = 100;

// Keeps `tree`'s first column fitted as rows come, go, change, expand and collapse, until the
// user sizes it by hand: that width then stays. A double click on its edge fits it again, and
// from then on keeps it fitted.
void keepNameColumnFitted(QTreeView *tree);

} // namespace sparsity::ui
