// The menu cpuidle governor's arithmetic (drivers/cpuidle/governors/menu.c), as pure functions
// of one CPU's struct menu_device: the 8-interval repeating-pattern detector
// (get_typical_interval), the per-bucket correction factors of the next-timer prediction, the
// state choice with its tick decision (menu_select) and the bookkeeping after a wake-up
// (menu_update). Units as in the kernel: intervals in us, times in ns (here sim::Picos).
//
//   kernel::MenuDevice dev;                                   // menu_enable_device()
//   const kernel::MenuChoice c = kernel::menu_select(spec, dev, timing, /*two_sided=*/true);
//   ... the CPU idles in spec.idle[c.idx], residency r, woken by the tick or not ...
//   kernel::menu_update(spec, dev, c.idx, r, tick_woke, tick);
//
// Version: "cpuidle: menu: Eliminate outliers on both ends of the sample set" (8de7606f0fe2)
// and the "return the maximum when half the samples remain" rule that came with it are in the
// governor from 6.15 [A: the release is inferred from the series' date, early 2025]; before,
// only the largest samples are discarded (two_sided = false). The iowait terms of older kernels
// (performance_multiplier, the iowait buckets) are absent: no model task waits for I/O.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "hw/machine.h"
#include "sim/time.h"

namespace ipisim::kernel {

inline constexpr uint32_t MENU_BUCKETS = 6;
inline constexpr uint32_t MENU_INTERVAL_SHIFT = 3;
inline constexpr uint32_t MENU_INTERVALS = 1U << MENU_INTERVAL_SHIFT;
inline constexpr uint32_t MENU_RESOLUTION = 1024;
inline constexpr uint32_t MENU_DECAY = 8;
inline constexpr uint32_t MENU_UINT_MAX = 0xFFFFFFFFU;
inline constexpr sim::Picos MENU_MAX_INTERESTING = sim::Picos(50'000ULL * 1'000'000ULL);  // 50 ms
// drivers/cpuidle/governors/gov.h: below it the next timer is not looked up.
inline constexpr sim::Picos RESIDENCY_THRESHOLD = sim::Picos(15ULL * 1'000'000ULL);  // 15 us
// "No timer": KTIME_MAX, the model's next_timer when no timer is pending on the CPU.
inline constexpr sim::Picos MENU_NO_TIMER = sim::Picos::max();

struct MenuDevice {
    sim::Picos next_timer;  // next_timer_ns of the last selection
    uint32_t bucket = 0;
    std::array<uint32_t, MENU_BUCKETS> correction_factor{};
    std::array<uint32_t, MENU_INTERVALS> intervals{};  // us
    uint32_t interval_ptr = 0;
    MenuDevice() { correction_factor.fill(MENU_RESOLUTION * MENU_DECAY); }  // menu_enable_device()
};

// What tick_nohz_get_sleep_length() tells the governor at selection time.
struct MenuTiming {
    sim::Picos next_timer = MENU_NO_TIMER;  // time to the closest timer if the tick were stopped
    sim::Picos delta_tick;                  // time to the next tick
    sim::Picos tick;                        // TICK_NSEC
};

struct MenuChoice {
    size_t idx = 0;
    bool stop_tick = true;
    sim::Picos predicted;  // the predicted idle duration the choice was made with
};

// The average of the recent intervals (us) when they are regular enough, else MENU_UINT_MAX.
[[nodiscard]] uint32_t get_typical_interval(const MenuDevice& dev, bool two_sided);
// menu_select(): the state to enter and whether the tick stops. No PM QoS latency limit is
// modelled (latency_req is infinite) and the tick is running at every selection (the idle exit
// restarts it), so tick_nohz_tick_stopped() is false.
[[nodiscard]] MenuChoice menu_select(const hw::MachineSpec& spec, MenuDevice& dev, const MenuTiming& t, bool two_sided);
// menu_update() after a residency of `residency` in spec.idle[idx]; `tick_wakeup`: the tick
// ended it (tick_nohz_idle_got_tick()); `tick`: TICK_NSEC.
void menu_update(const hw::MachineSpec& spec, MenuDevice& dev, size_t idx, sim::Picos residency, bool tick_wakeup,
                 sim::Picos tick);

}  // namespace ipisim::kernel
