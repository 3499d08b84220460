#pragma once
// LogCountAxis: a y axis for counts drawn at log10(count + 1) (so that a count of 0 sits on the
// axis), with ticks at whole decades of the count labelled as counts: 0, 1, 10, 100, 1k, 10k …
// (every other decade, or every third…, when they would not fit the room the axis has). Its
// range runs from 0 to the first decade at or above the largest count shown.
#include <QCategoryAxis>
#include <cstdint>

namespace sparsity::ui {

class LogCountAxis : public QCategoryAxis {
    Q_OBJECT

public:
    explicit LogCountAxis(QObject *parent = nullptr);

    // Where `count` is drawn.
    static double position(double count);
    // "0", "1", "10", "100", "1k", "10k", "100k", "1M" …
    static QString countLabel(std::int64_t count);

    // Ticks and range for counts up to `maxCount` (10 at least, so that an empty or sparse
    // histogram still has a scale).
    void setMaxCount(double maxCount);
    // At most `labels` labels (three at least: 0, the top and one between): every decade while they
    // fit, else every other one, or every third…, counted down from the top. Qt Charts elides
    // every label of an axis too short for them to "…". The default, 7, labels 0..100k each.
    void setLabelRoom(int labels);

private:
    void rebuild();

    double m_maxCount = 10.0;
    int m_labelRoom = 7;
};

} // namespace sparsity::ui
