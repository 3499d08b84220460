// The k lowest keys (core/parallel/lowest_across_ranks.h) against a stable sort of the whole
// sequence: NaN last, -0 equal to +0, ties to the lower position. Long enough stretches that
// the rounds and the choice run on every thread, with ties at the pivot across the threads'
// shares; and the same selection fed in stretches of any length equal to the held one.
#include "core/parallel/lowest_across_ranks.h"

#include <QTest>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

using namespace sparsity;

class TestLowestKeys : public QObject {
    Q_OBJECT

private slots:
    void heldFloat();
    void heldDouble();
    void inStretches();
};

namespace {

// Keys from few distinct values (many ties), with NaN, infinities and both zeros.
template <class Key>
std::vector<Key> tiedKeys(std::size_t count, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> pick(0, 40);
    std::vector<Key> keys(count);
    for (auto &k : keys) {
        const int p = pick(rng);
        k = p == 0   ? std::numeric_limits<Key>::quiet_NaN()
            : p == 1 ? std::numeric_limits<Key>::infinity()
            : p == 2 ? -std::numeric_limits<Key>::infinity()
            : p == 3 ? Key(-0.0)
            : p == 4 ? Key(0)
                     : static_cast<Key>(p % 9) * Key(0.25) - Key(1);
    }
    return keys;
}

// The first k of a stable sort by (key, NaN last), as 0/1 per position.
template <class Key>
std::vector<std::uint8_t> bySorting(const std::vector<Key> &keys, std::int64_t k)
{
    std::vector<std::size_t> order(keys.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        if (std::isnan(keys[a]))
            return false;
        return std::isnan(keys[b]) || keys[a] < keys[b];
    });
    std::vector<std::uint8_t> chosen(keys.size());
    for (std::int64_t i = 0; i < std::clamp<std::int64_t>(k, 0, static_cast<std::int64_t>(keys.size())); ++i)
        chosen[order[static_cast<std::size_t>(i)]] = 1;
    return chosen;
}

template <class Key>
void heldMatchesSorting()
{
    const core::SoloRanks solo;
    for (const std::size_t count : {std::size_t{0}, std::size_t{13}, std::size_t{70001}, std::size_t{300007}}) {
        const auto keys = tiedKeys<Key>(count, static_cast<unsigned>(count));
        const auto n = static_cast<std::int64_t>(count);
        for (const std::int64_t k : {std::int64_t{-1}, std::int64_t{0}, n / 3, n / 2 + 1, n - 1, n, n + 5}) {
            const auto chosen = core::lowestAcrossRanks(solo, std::span<const Key>(keys), k);
            QCOMPARE(chosen, bySorting(keys, k));
        }
    }
}

} // namespace

void TestLowestKeys::heldFloat() { heldMatchesSorting<float>(); }
void TestLowestKeys::heldDouble() { heldMatchesSorting<double>(); }

void TestLowestKeys::inStretches()
{
    const core::SoloRanks solo;
    const auto keys = tiedKeys<float>(250000, 3);
    const auto n = static_cast<std::int64_t>(keys.size());
    for (const std::size_t stretch : {std::size_t{1000}, std::size_t{65536}, std::size_t{100003}}) {
        const auto inStretchesOf = [&](auto &&f) {
            for (std::size_t first = 0; first < keys.size(); first += stretch)
                f(std::span<const float>(keys).subspan(first, std::min(stretch, keys.size() - first)));
        };
        const core::LowestKeys<float> selection(solo, n, n / 2, [&](auto &&count) { inStretchesOf(count); });
        QCOMPARE(selection.chosenCount(), n / 2);
        core::LowestKeys<float>::Chooser chooser(selection);
        std::vector<std::uint8_t> chosen(keys.size());
        std::size_t at = 0;
        inStretchesOf([&](std::span<const float> part) {
            chooser.choose(part, chosen.data() + at);
            at += part.size();
        });
        QCOMPARE(chosen, bySorting(keys, n / 2));
    }
}

QTEST_GUILESS_MAIN(TestLowestKeys)
#include "tst_lowest_keys.moc"
