#include "check/monitors.h"

#include <numeric>

namespace ipisim::check {

std::string_view to_string(ViolationKind k) {
    switch (k) {
        case ViolationKind::stale_translation:
            return "stale_translation";
        case ViolationKind::stuck_wait:
            return "stuck_wait";
        case ViolationKind::deadlock:
            return "deadlock";
        case ViolationKind::contract:
            return "contract";
        case ViolationKind::no_progress:
            return "no_progress";
    }
    return "?";
}

Monitors::Monitors(hw::Platform& platform, MonitorOptions options, kernel::Kernel* kernel)
    : platform_(platform),
      kernel_(kernel),
      eng_(platform.engine()),
      options_(options),
      waits_(platform.nr_cpus(),
             options.wait_bound == sim::Picos::zero() ? default_wait_bound(platform.spec()) : options.wait_bound),
      stale_(platform.nr_cpus()),
      contracts_(platform.nr_cpus()),
      progress_(options.no_progress_bound),
      cr3_pcid_(platform.nr_cpus(), 0) {}

void Monitors::compute_done(hw::CpuId /*cpu*/, bool work) {
    if (stopped_) {
        eng_.stop();  // the point stops: the workload's remaining phases end at once
        return;
    }
    if (options_.no_progress_bound == sim::Picos::zero()) return;
    if (work) {
        progress_.work_retired(now());
        return;
    }
    if (!progress_.overdue(now())) return;
    std::vector<hw::Activity> activity;
    activity.reserve(platform_.nr_cpus());
    for (hw::CpuId c = 0; c < platform_.nr_cpus(); ++c) activity.push_back(platform_.cpu(c).profile().activity());
    if (auto v = progress_.check(now(), waits_, activity)) {
        report(std::move(*v));
        stopped_ = true;
        eng_.stop();
    } else {
        progress_.restart(now());
    }
}

uint64_t Monitors::total() const {
    return std::accumulate(counts_.begin(), counts_.end(), uint64_t{0});
}

void Monitors::report(Violation v) {
    if (total() == 0 && options_.event_log) window_ = log_.render();
    ++counts_[static_cast<size_t>(v.kind)];
    if (kept_.size() < kKept) kept_.push_back(std::move(v));
    if (options_.stop_on_violation) eng_.stop();
}

void Monitors::finish(bool drained, uint32_t unfinished) {
    const sim::Picos t = now();
    if (drained && unfinished > 0) {
        report(deadlock_.analyze(waits_, platform_.nr_cpus(), t,
                                 [this](hw::CpuId c) { return platform_.cpu(c).irqs_disabled(); }));
        return;
    }
    for (Violation& v : waits_.stuck(t)) report(std::move(v));
}

void Monitors::finish_run() {
    uint32_t waiting = 0;
    for (hw::CpuId c = 0; c < platform_.nr_cpus(); ++c) waiting += waits_.blocking_wait(c) != nullptr ? 1 : 0;
    finish(eng_.pending_events() == 0, waiting);
}

nlohmann::ordered_json Monitors::summary() const {
    nlohmann::ordered_json j;
    j["violations"] = total();
    if (kept_.empty()) return j;
    const Violation& v = kept_.front();
    j["first"] = {{"kind", to_string(v.kind)}, {"cpu", v.cpu}, {"time_ps", v.time.count()}, {"diagnosis", v.diagnosis}};
    nlohmann::ordered_json by_kind = nlohmann::ordered_json::object();
    for (size_t k = 0; k < counts_.size(); ++k) {
        if (counts_[k] != 0) by_kind[std::string(to_string(static_cast<ViolationKind>(k)))] = counts_[k];
    }
    j["by_kind"] = by_kind;
    return j;
}

void Monitors::wait_begin(hw::CpuId cpu, const hw::SimVar& var) {
    log(cpu, LogKind::wait_begin, 0, 0, &var);
    waits_.wait_begin(cpu, var, now());
}

void Monitors::sleep_begin(hw::CpuId cpu, const hw::SimVar& var) {
    waits_.sleep_begin(cpu, var, now());
}

void Monitors::sleep_end(hw::CpuId cpu, const hw::SimVar& var) {
    waits_.sleep_end(cpu, var);
}

void Monitors::wait_end(hw::CpuId cpu) {
    log(cpu, LogKind::wait_end);
    if (auto v = waits_.wait_end(cpu, now())) report(std::move(*v));
}

void Monitors::lock_acquired(hw::CpuId cpu, const hw::SimVar& word) {
    log(cpu, LogKind::lock_acquired, 0, 0, &word);
    deadlock_.lock_acquired(cpu, word);
}

void Monitors::lock_queued(hw::CpuId /*cpu*/, const hw::SimVar& node, const hw::SimVar& word) {
    deadlock_.lock_queued(node, word);
}

void Monitors::lock_released(hw::CpuId cpu, const hw::SimVar& word) {
    log(cpu, LogKind::lock_released, 0, 0, &word);
    deadlock_.lock_released(word);
}

// Not in the event log: mmap_lock is taken on every fault, mmap and munmap, and would crowd the
// window of the last events out of it.
void Monitors::rwsem_acquired(hw::CpuId cpu, const hw::SimVar& count, bool write) {
    deadlock_.rwsem_acquired(cpu, count, write);
}

void Monitors::rwsem_released(hw::CpuId cpu, const hw::SimVar& count, bool write) {
    deadlock_.rwsem_released(cpu, count, write);
}

void Monitors::csd_locked(hw::CpuId cpu, const hw::SimVar& flags, hw::CpuId target) {
    log(cpu, LogKind::csd_locked, target, 0, &flags);
    deadlock_.csd_locked(flags, target);
}

void Monitors::csd_unlock(hw::CpuId cpu, const hw::SimVar& flags, uint64_t old_flags) {
    log(cpu, LogKind::csd_unlock, old_flags, 0, &flags);
    if (auto v = contracts_.csd_unlock(cpu, flags, old_flags, now())) report(std::move(*v));
}

void Monitors::user_tlb_hit(hw::CpuId cpu, uint64_t mm_id, uint64_t va, sim::Picos filled) {
    log(cpu, LogKind::tlb_hit, mm_id, va);
    if (auto v = stale_.user_tlb_hit(cpu, mm_id, va, filled, now())) report(std::move(*v));
}

void Monitors::pte_cleared(hw::CpuId cpu, uint64_t mm_id, uint64_t vpn) {
    log(cpu, LogKind::pte_cleared, mm_id, vpn);
    stale_.pte_cleared(cpu, mm_id, vpn, now());
}

void Monitors::pages_released(hw::CpuId cpu, uint64_t mm_id, uint64_t start, uint64_t end, bool freed_tables,
                              sim::Picos zapped) {
    log(cpu, LogKind::pages_released, mm_id, start);
    stale_.pages_released(cpu, mm_id, start, end, now(), zapped);
    if (freed_tables && kernel_ != nullptr) {
        const std::optional<sim::Picos> began = stale_.last_flush_began(cpu);
        if (auto v =
                check_freed_tables(kernel_->mm(), cr3_pcid_, cpu, mm_id, start, end, began.value_or(now()), now())) {
            report(std::move(*v));
        }
    }
}

void Monitors::flush_returned(hw::CpuId cpu, uint64_t mm_id, uint64_t start, uint64_t end, sim::Picos began) {
    log(cpu, LogKind::flush_returned, mm_id, start);
    stale_.flush_returned(cpu, start, end, began, now());
    if (auto v = contracts_.flush_returned(cpu, now())) report(std::move(*v));
}

void Monitors::rar_payload_written(hw::CpuId sender, uint32_t slot) {
    log(sender, LogKind::rar_payload, slot);
    if (auto v = contracts_.rar_payload_written(sender, slot, now())) report(std::move(*v));
}

void Monitors::rar_action_pending(hw::CpuId sender, hw::CpuId target, uint32_t slot) {
    log(sender, LogKind::rar_pending, target, slot);
    contracts_.rar_action_pending(sender, target, slot, now());
}

void Monitors::rar_action_done(hw::CpuId target, uint32_t slot) {
    log(target, LogKind::rar_done, slot);
    contracts_.rar_action_done(slot);
}

void Monitors::invlpgb_issued(hw::CpuId cpu, bool all_asids) {
    log(cpu, LogKind::invlpgb, all_asids ? 1 : 0);
    contracts_.invlpgb_issued(cpu, all_asids, now());
}

void Monitors::tlbsync_returned(hw::CpuId cpu) {
    log(cpu, LogKind::tlbsync);
    contracts_.tlbsync_returned(cpu);
}

void Monitors::tlb_flushed_all(hw::CpuId cpu) {
    contracts_.tlb_flushed_all(cpu);
}

void Monitors::global_asid_assigned(hw::CpuId cpu, uint64_t asid) {
    log(cpu, LogKind::asid_assigned, asid);
    if (auto v = contracts_.global_asid_assigned(cpu, asid, now())) report(std::move(*v));
}

void Monitors::global_asid_freed(hw::CpuId cpu, uint64_t asid) {
    log(cpu, LogKind::asid_freed, asid);
    contracts_.global_asid_freed(cpu, asid, now());
}

void Monitors::global_asid_reset_begin(hw::CpuId cpu) {
    log(cpu, LogKind::asid_reset, 0);
    contracts_.global_asid_reset_begin(cpu);
}

void Monitors::global_asid_reset_end(hw::CpuId cpu) {
    log(cpu, LogKind::asid_reset, 1);
    contracts_.global_asid_reset_end(cpu);
}

}  // namespace ipisim::check
