#include "core/sparsify/scheduler.h"

#include "core/util/errors.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

namespace sparsity::core {

std::vector<double> SparsityScheduler::curve(std::int64_t firstStep, std::int64_t lastStep) const
{
    std::vector<double> out;
    for (auto t = firstStep; t <= lastStep; ++t)
        out.push_back(level(t));
    return out;
}

CubicScheduler::CubicScheduler(double s0, double sf, std::int64_t t0, std::int64_t dt, std::int64_t n, bool initiallyZero)
    : m_s0(s0), m_sf(sf), m_t0(t0), m_dt(dt), m_n(n), m_initiallyZero(initiallyZero)
{
    if (dt <= 0 || n <= 0)
        throw errors::mustBe("cubic schedule DT and N", "be > 0", std::to_string(dt) + ", " + std::to_string(n));
    for (double s : {s0, sf})
        if (!(s >= 0 && s <= 1))
            throw errors::mustBe("cubic schedule levels", "be in [0, 1]", std::to_string(s));
}

double CubicScheduler::level(std::int64_t step) const
{
    if (m_initiallyZero && step < m_t0)
        return 0.0;
    const double progress = 1.0 - static_cast<double>(step - m_t0) / static_cast<double>(m_dt * m_n);
    const double s = m_sf + (m_s0 - m_sf) * progress * progress * progress;
    return std::max(m_s0, std::min(m_sf, s)); // CubicSL's _clamp(x, lo, hi)
}

LinearScheduler::LinearScheduler(double s0, double sf, std::int64_t t0, std::int64_t t1) : m_s0(s0), m_sf(sf), m_t0(t0), m_t1(t1)
{
    if (t1 <= t0)
        throw errors::mustBe("linear schedule T1", "be > T0=" + std::to_string(t0), std::to_string(t1));
}

double LinearScheduler::level(std::int64_t step) const
{
    const double f = std::clamp(static_cast<double>(step - m_t0) / static_cast<double>(m_t1 - m_t0), 0.0, 1.0);
    return m_s0 + (m_sf - m_s0) * f;
}

ListScheduler::ListScheduler(std::vector<double> levels) : m_levels(std::move(levels))
{
    if (m_levels.empty())
        throw errors::mustBe("list schedule", "hold at least one level", "none");
}

double ListScheduler::level(std::int64_t step) const
{
    const auto index = std::clamp<std::int64_t>(step, 0, static_cast<std::int64_t>(m_levels.size()) - 1);
    return m_levels[static_cast<std::size_t>(index)];
}

std::unique_ptr<SparsityScheduler> parseSchedule(std::string_view spec)
{
    const auto colon = spec.find(':');
    const std::string kind(spec.substr(0, colon));
    std::vector<std::string> parts;
    if (colon != std::string_view::npos) {
        std::stringstream rest{std::string(spec.substr(colon + 1))};
        for (std::string item; std::getline(rest, item, ',');)
            parts.push_back(item);
    }
    auto bad = [&] {
        return errors::mustBe("schedule", "be cubic:S0,SF,T0,DT,N[,zero], linear:S0,SF,T0,T1 or list:L0,L1,...",
                              "'" + std::string(spec) + "'");
    };
    try {
        if (kind == "cubic" && (parts.size() == 5 || (parts.size() == 6 && parts[5] == "zero")))
            return std::make_unique<CubicScheduler>(std::stod(parts[0]), std::stod(parts[1]), std::stoll(parts[2]),
                                                    std::stoll(parts[3]), std::stoll(parts[4]), parts.size() == 6);
        if (kind == "linear" && parts.size() == 4)
            return std::make_unique<LinearScheduler>(std::stod(parts[0]), std::stod(parts[1]), std::stoll(parts[2]),
                                                     std::stoll(parts[3]));
        if (kind == "list" && !parts.empty()) {
            std::vector<double> levels;
            for (const auto &p : parts)
                levels.push_back(std::stod(p));
            return std::make_unique<ListScheduler>(std::move(levels));
        }
    } catch (const std::logic_error &) { // stod/stoll: not a number
        throw bad();
    }
    throw bad();
}

} // namespace sparsity::core
