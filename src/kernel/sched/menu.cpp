// drivers/cpuidle/governors/menu.c (torvalds/linux, 6.15+; see menu.h for the older variant),
// in the kernel's integer units: ns for times, us for the interval samples.
#include "kernel/sched/menu.h"

#include <algorithm>

namespace ipisim::kernel {

namespace {

constexpr uint64_t kNsPerUs = 1000;
constexpr uint64_t kKtimeMax = 0x7FFFFFFFFFFFFFFFULL;

uint64_t ns_of(sim::Picos t) {
    return t == MENU_NO_TIMER ? kKtimeMax : t.count() / 1000;
}

sim::Picos picos_of_ns(uint64_t ns) {
    return ns >= kKtimeMax ? MENU_NO_TIMER : sim::Picos(ns * 1000);
}

uint32_t which_bucket(uint64_t duration_ns) {
    if (duration_ns < 10ULL * kNsPerUs) return 0;
    if (duration_ns < 100ULL * kNsPerUs) return 1;
    if (duration_ns < 1000ULL * kNsPerUs) return 2;
    if (duration_ns < 10000ULL * kNsPerUs) return 3;
    if (duration_ns < 100000ULL * kNsPerUs) return 4;
    return 5;
}

void menu_update_intervals(MenuDevice& dev, uint32_t interval_us) {
    dev.intervals[dev.interval_ptr++] = interval_us;
    if (dev.interval_ptr >= MENU_INTERVALS) dev.interval_ptr = 0;
}

}  // namespace

uint32_t get_typical_interval(const MenuDevice& dev, bool two_sided) {
    int64_t min_thresh = -1;
    int64_t max_thresh = MENU_UINT_MAX;
    for (;;) {
        // Compute the average and variance of past intervals.
        uint32_t max = 0;
        uint32_t min = MENU_UINT_MAX;
        uint64_t avg = 0;
        uint64_t variance = 0;
        uint32_t divisor = 0;
        for (const uint32_t v : dev.intervals) {
            const auto value = static_cast<int64_t>(v);
            // Discard the samples outside the interval between the min and max thresholds.
            if (value <= min_thresh || value >= max_thresh) continue;
            ++divisor;
            avg += v;
            variance += static_cast<uint64_t>(v) * v;
            max = std::max(max, v);
            min = std::min(min, v);
        }
        if (max == 0) return MENU_UINT_MAX;
        avg /= divisor;
        variance /= divisor;
        const uint64_t avg_sq = avg * avg;
        variance -= std::min(variance, avg_sq);
        // Typical when stddev <= 20 us, or avg > 6 stddev with at least 3/4 of the samples.
        if (variance <= UINT64_MAX / 36) {
            if ((avg_sq > variance * 36 && divisor * 4 >= MENU_INTERVALS * 3) || variance <= 400) {
                return static_cast<uint32_t>(avg);
            }
        }
        // Down to 3/4 of the samples: stop excluding.
        if (divisor * 4 <= MENU_INTERVALS * 3) {
            // 6.15+: with half the samples or more left, the next interval likely stays below
            // the current maximum.
            if (two_sided && divisor >= MENU_INTERVALS / 2) return max;
            return MENU_UINT_MAX;
        }
        // Exclude the samples farthest from the average (before 6.15: always the largest).
        if (two_sided && avg - min > max - avg) {
            min_thresh = min;
        } else {
            max_thresh = max;
        }
    }
}

MenuChoice menu_select(const hw::MachineSpec& spec, MenuDevice& dev, const MenuTiming& t, bool two_sided) {
    const std::vector<hw::IdleState>& states = spec.idle;
    MenuChoice out;
    if (states.empty()) return out;
    const uint64_t tick_ns = ns_of(t.tick);
    uint64_t delta_tick = ns_of(t.delta_tick);

    // Find the shortest expected idle interval.
    uint64_t predicted_ns = static_cast<uint64_t>(get_typical_interval(dev, two_sided)) * kNsPerUs;
    if (predicted_ns > ns_of(RESIDENCY_THRESHOLD)) {
        dev.next_timer = t.next_timer;
        const uint64_t next_ns = ns_of(t.next_timer);
        dev.bucket = which_bucket(next_ns);
        // Round up the result for half microseconds.
        constexpr uint64_t kDiv = uint64_t{MENU_RESOLUTION} * MENU_DECAY * kNsPerUs;
        const unsigned __int128 scaled =
            kDiv / 2 + static_cast<unsigned __int128>(next_ns) * dev.correction_factor[dev.bucket];
        const unsigned __int128 timer_us = scaled / kDiv;
        const unsigned __int128 timer_ns = timer_us * kNsPerUs;
        // Use the lowest expected idle interval to pick the idle state.
        if (timer_ns < predicted_ns) predicted_ns = static_cast<uint64_t>(timer_ns);
    } else {
        // The next timer is not looked up: assume it is far away and the tick comes after half
        // of its period.
        dev.next_timer = MENU_NO_TIMER;
        delta_tick = tick_ns / 2;
        dev.bucket = MENU_BUCKETS - 1;
    }
    const uint64_t next_timer_ns = ns_of(dev.next_timer);

    if (states.size() <= 1 || next_timer_ns < ns_of(states[1].target_residency)) {
        // State 0 no matter what; the tick runs on if it is a polling one.
        out.idx = 0;
        out.stop_tick = !states[0].software_poll();
        out.predicted = picos_of_ns(predicted_ns);
        return out;
    }

    // The deepest state whose target residency fits the prediction.
    size_t idx = 0;
    for (size_t i = 0; i < states.size(); ++i) {
        const hw::IdleState& s = states[i];
        if (ns_of(s.target_residency) > predicted_ns) {
            // Use a physical idle state, not busy polling, unless a timer is going to trigger
            // soon enough.
            if (states[idx].software_poll() && ns_of(s.target_residency) <= next_timer_ns) {
                predicted_ns = ns_of(s.target_residency);
                idx = i;
                break;
            }
            if (predicted_ns < tick_ns) break;
            // The tick is running: a shallow state chosen so far keeps it, the governor runs
            // again at the next tick.
            predicted_ns = ns_of(states[idx].target_residency);
            break;
        }
        idx = i;
    }

    out.stop_tick = true;
    // The tick is not stopped for a polling state or an expected idle shorter than a tick.
    if (states[idx].software_poll() || predicted_ns < tick_ns) {
        out.stop_tick = false;
        if (idx > 0 && ns_of(states[idx].target_residency) > delta_tick) {
            // The state's target residency exceeds the time to the next tick: step down.
            for (size_t i = idx; i-- > 0;) {
                idx = i;
                if (ns_of(states[i].target_residency) <= delta_tick) break;
            }
        }
    }
    out.idx = idx;
    out.predicted = picos_of_ns(predicted_ns);
    return out;
}

void menu_update(const hw::MachineSpec& spec, MenuDevice& dev, size_t idx, sim::Picos residency, bool tick_wakeup,
                 sim::Picos tick) {
    const hw::IdleState& target = spec.idle.at(idx);
    const uint64_t next_timer_ns = ns_of(dev.next_timer);
    const uint64_t max_interesting = ns_of(MENU_MAX_INTERESTING);
    uint64_t measured_ns = 0;
    if (tick_wakeup && next_timer_ns > ns_of(tick)) {
        // The tick woke a CPU the predictor expected to stay idle longer: count it as idle long
        // (but not forever).
        measured_ns = 9 * max_interesting / 10;
    } else {
        // The measured residency less the exit latency (the wake-up began before), or half of
        // it when it was under twice the exit latency. (A polling state's time limit, the
        // other case of menu_update(), is not modelled: poll_idle runs until woken.)
        measured_ns = ns_of(residency);
        const uint64_t exit_ns = ns_of(target.exit_latency);
        if (measured_ns > 2 * exit_ns) {
            measured_ns -= exit_ns;
        } else {
            measured_ns /= 2;
        }
    }
    // Make sure our coefficients do not exceed unity.
    measured_ns = std::min(measured_ns, next_timer_ns);
    // Update our correction ratio.
    uint32_t new_factor = dev.correction_factor[dev.bucket];
    new_factor -= new_factor / MENU_DECAY;
    if (next_timer_ns > 0 && measured_ns < max_interesting) {
        new_factor += static_cast<uint32_t>(uint64_t{MENU_RESOLUTION} * measured_ns / next_timer_ns);
    } else {
        new_factor += MENU_RESOLUTION;  // idle so long that it counts as a perfect prediction
    }
    dev.correction_factor[dev.bucket] = new_factor;
    const uint64_t us = measured_ns / kNsPerUs;
    menu_update_intervals(dev, us > MENU_UINT_MAX ? MENU_UINT_MAX : static_cast<uint32_t>(us));
}

}  // namespace ipisim::kernel
