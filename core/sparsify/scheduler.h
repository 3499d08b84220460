#pragma once
// Sparsity schedules: the sparsity level as a function of the step, for previews (GUI) and
// for picking a level at a given step (CLI --schedule ... --at-step T).
//   cubic   Zhu & Gupta (PyTorch's CubicSL): s_t = s_f + (s_0 - s_f)(1 - (t - t_0)/(n Δt))^3,
//           clamped as CubicSL clamps (max(s_0, min(s_f, s_t))); 0 before t_0 if initially_zero
//   linear  s_0 at t_0 to s_f at t_1, constant outside
//   list    explicit levels; the last one holds after the list ends
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace sparsity::core {

class SparsityScheduler {
public:
    virtual ~SparsityScheduler() = default;
    virtual double level(std::int64_t step) const = 0;
    std::vector<double> curve(std::int64_t firstStep, std::int64_t lastStep) const;
};

class CubicScheduler final : public SparsityScheduler {
public:
    CubicScheduler(double s0, double sf, std::int64_t t0, std::int64_t dt, std::int64_t n, bool initiallyZero = false);
    double level(std::int64_t step) const override;

private:
    double m_s0, m_sf;
    std::int64_t m_t0, m_dt, m_n;
    bool m_initiallyZero;
};

class LinearScheduler final : public SparsityScheduler {
public:
    LinearScheduler(double s0, double sf, std::int64_t t0, std::int64_t t1);
    double level(std::int64_t step) const override;

private:
    double m_s0, m_sf;
    std::int64_t m_t0, m_t1;
};

class ListScheduler final : public SparsityScheduler {
public:
    explicit ListScheduler(std::vector<double> levels);
    double level(std::int64_t step) const override;

private:
    std::vector<double> m_levels;
};

// "cubic:S0,SF,T0,DT,N[,zero]", "linear:S0,SF,T0,T1" or "list:L0,L1,...". InputError otherwise.
std::unique_ptr<SparsityScheduler> parseSchedule(std::string_view spec);

} // namespace sparsity::core
